import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary folder of files for one test file; `remove()` it in teardown. */
export interface FileFixture {
  /** The folder's real path (symlinks resolved, as the file tools see it). */
  dir: string;
  /** `dir` joined with `parts`. */
  path(...parts: string[]): string;
  /** Writes `content` at `relativePath` (its folders created) and answers the file's path. */
  write(relativePath: string, content: string | Uint8Array): Promise<string>;
  /** Deletes the folder and everything in it. */
  remove(): Promise<void>;
}

/**
 * Creates a temporary folder named after `prefix` holding `files` (relative path -> content); every test
 * that needs files on disk starts from one.
 * @example
 * const fixture = await createFileFixture('svc-file-tools-', { 'work/report.md': '# Sales' });
 */
export async function createFileFixture(
  prefix: string,
  files: Record<string, string | Uint8Array> = {},
): Promise<FileFixture> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  const fixture: FileFixture = {
    dir,
    path: (...parts) => path.join(dir, ...parts),
    async write(relativePath, content) {
      const file = path.join(dir, relativePath);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  for (const [relativePath, content] of Object.entries(files)) await fixture.write(relativePath, content);
  return fixture;
}
