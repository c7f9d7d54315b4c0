import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** The folder examples write into: git-ignored, so running one in a clone leaves the repository clean. */
export const OUTPUT_DIR = join('.artifacts', 'examples');

/** Where an example writes `name` (the folder is created), and that path relative to the working folder. */
export async function outputPath(name: string): Promise<{ path: string; shown: string }> {
  const dir = join(process.cwd(), OUTPUT_DIR);
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  return { path, shown: relative(process.cwd(), path) };
}
