import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/** Resolves a file argument against `cwd` and checks it is a readable regular file, before any upload. */
export async function resolveInputFile(cwd: string, path: string): Promise<string> {
  const absolute = resolve(cwd, path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new Error(`no such file: ${path}`);
  if (!info.isFile()) throw new Error(`not a file: ${path}`);
  return absolute;
}
