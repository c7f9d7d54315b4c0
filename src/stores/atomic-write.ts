import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { StoreWriteError } from './store-errors.js';

const datasync = promisify(fdatasync);

// A disk that cannot take the bytes: full, over quota, or the file at its size limit.
const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * Writes all of `text` at the file's current position. `writeSync` may take fewer bytes than given (a
 * disk filling up) and says so only in its return value, so the rest is written in further calls; a
 * call that takes nothing fails with `ESHORTWRITE` rather than loop.
 */
export function writeFully(fd: number, text: string, path: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < bytes.length) {
      const written = writeSync(fd, bytes, offset, bytes.length - offset);
      if (written <= 0) throw new StoreWriteError({ store: 'fileStore', path, code: 'ESHORTWRITE' });
      offset += written;
    }
  } catch (error) {
    throw asWriteError(error, path);
  }
}

/** `error` as a typed transient `StoreWriteError` when it says the disk cannot take the bytes. */
export function asWriteError(error: unknown, path: string): unknown {
  if (StoreWriteError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && NO_SPACE_CODES.has(code))
    return new StoreWriteError({ store: 'fileStore', path, code, cause: error });
  return error;
}

/**
 * Replaces `path` with `text` so a reader sees the old file or the new one, never a torn one: write a
 * temporary file beside it, fsync it, rename it over. Every byte is checked written before the rename,
 * so a full disk (`StoreWriteError`) leaves the old file and no temporary one. With `fsync: false` a
 * power loss may lose the last write (a process crash still cannot tear it). Only the fsync, which may
 * wait on the disk, leaves the event loop; the other calls are quick local syscalls, cheaper made
 * synchronously.
 */
export async function atomicWrite(path: string, text: string, fsync: boolean): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let fd: number;
  try {
    fd = openSync(temporary, 'w');
  } catch (error) {
    throw asWriteError(error, path);
  }
  try {
    writeFully(fd, text, path);
    // A delayed-allocation filesystem may report a full disk only here.
    if (fsync) await datasync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw asWriteError(error, path);
  }
  closeSync(fd);
  renameSync(temporary, path);
}
