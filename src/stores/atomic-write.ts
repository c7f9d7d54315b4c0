import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';

const datasync = promisify(fdatasync);

/**
 * Replaces `path` with `text` so a reader sees the old file or the new one, never a torn one: write a
 * temporary file beside it, fsync it, rename it over. With `fsync: false` a power loss may lose the
 * last write (a process crash still cannot tear it). Only the fsync, which may wait on the disk, leaves
 * the event loop; the other calls are quick local syscalls, cheaper made synchronously.
 */
export async function atomicWrite(path: string, text: string, fsync: boolean): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, text);
    if (fsync) await datasync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}
