import { open, readFile, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

// A lock held longer than this by a live process is still honoured; past it, only a dead holder's is taken.
const STALE_MS = 30_000;

/**
 * Runs `fn` while holding `path` as an exclusive lock file (`O_EXCL` create), so two processes on one
 * machine never read-modify-write the same file at once. A lock whose holder died (SIGKILL) is taken over:
 * the file names the holder's pid, and a pid that no longer exists cannot be holding it.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await isStale(path)) await rm(path, { force: true });
      else await sleep(Math.min(1 + attempt, 20));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}

async function isStale(path: string): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const pid = Number(text);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) return true;
    return Date.now() - info.mtimeMs > STALE_MS && !(pid > 0 && isAlive(pid));
  } catch {
    // Gone already, or written but not yet filled: try again.
    return false;
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
