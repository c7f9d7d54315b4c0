import { closeSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { asWriteError, writeFully } from './atomic-write.js';

// A lock held longer than this by a live process is still honoured; past it, only a dead holder's is taken.
const STALE_MS = 30_000;
// A holder names itself right after creating the file, in the same synchronous step: an empty lock
// older than this is one whose holder died in between.
const EMPTY_STALE_MS = 2_000;

/**
 * Runs `fn` while holding `path` as an exclusive lock file (`O_EXCL` create), so two processes on one
 * machine never read-modify-write the same file at once. A lock whose holder died (SIGKILL) is taken over:
 * the file names the holder's pid, and a pid that no longer exists cannot be holding it. Taking and
 * releasing the lock are single local syscalls, made synchronously: through the thread pool they cost
 * more than they block (bench/results/durable.md).
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeFully(fd, String(process.pid), path);
      } catch (error) {
        // A full disk: the lock is not taken, and no empty lock file is left to stall the next writer.
        closeSync(fd);
        unlinkQuietly(path);
        throw error;
      }
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asWriteError(error, path);
      if (isStale(path)) unlinkQuietly(path);
      else await sleep(Math.min(1 + attempt, 20));
    }
  }
  try {
    return await fn();
  } finally {
    unlinkQuietly(path);
  }
}

// A lock's age is its file's mtime, stamped by the OS clock, so it is read against the wall clock, not the
// store's injected clock (which only times expiries the store itself writes).
function isStale(path: string): boolean {
  try {
    const text = readFileSync(path, 'utf8');
    if (text === '') return Date.now() - statSync(path).mtimeMs > EMPTY_STALE_MS;
    const pid = Number(text);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) return true;
    return Date.now() - statSync(path).mtimeMs > STALE_MS && !(pid > 0 && isAlive(pid));
  } catch {
    // Gone already, or created but not yet filled: try again.
    return false;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
