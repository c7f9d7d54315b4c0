import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/**
 * Replaces `path` with `text` so a reader sees the old file or the new one, never a torn one: write a
 * temporary file beside it, fsync it, rename it over. With `fsync: false` a power loss may lose the
 * last write (a process crash still cannot tear it).
 */
export async function atomicWrite(path: string, text: string, fsync: boolean): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(text);
    if (fsync) await handle.datasync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, path);
}
