import { constants } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { PathOutsideRootError } from '../errors.js';

/**
 * Resolves `requested` (relative to `root`, or absolute) to the real path of a regular file inside the
 * real `root`. Both the lexical path (`..`) and the target of every symlink must stay inside the root.
 */
export async function resolveInsideRoot(root: string, requested: string): Promise<string> {
  if (typeof requested !== 'string' || requested.trim() === '' || requested.includes('\0')) {
    throw new PathOutsideRootError(String(requested), 'not a valid path');
  }
  const absoluteRoot = path.resolve(root);
  const realRoot = await realpath(absoluteRoot);
  let relative = requested;
  if (path.isAbsolute(requested)) {
    // An absolute path may name the root as given or as resolved; either way only its part below counts.
    const absolute = path.resolve(requested);
    const base = [realRoot, absoluteRoot].find((candidate) => isInside(candidate, absolute));
    if (!base) throw new PathOutsideRootError(requested, 'it lies outside the allowed directory');
    relative = path.relative(base, absolute);
  }
  const lexical = path.resolve(realRoot, relative);
  if (!isInside(realRoot, lexical)) {
    throw new PathOutsideRootError(requested, 'it lies outside the allowed directory');
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw new PathOutsideRootError(requested, 'no such file inside the allowed directory');
  }
  if (!isInside(realRoot, real)) {
    throw new PathOutsideRootError(requested, 'it is a link to a place outside the allowed directory');
  }
  const info = await stat(real);
  if (!info.isFile()) throw new PathOutsideRootError(requested, 'not a regular file');
  return real;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative !== '' &&
    !relative.startsWith(`..${path.sep}`) &&
    relative !== '..' &&
    !path.isAbsolute(relative)
  );
}

/** Options of {@link readInsideRoot}. */
export interface ReadInsideRootOptions {
  /** Accept a regular file with more than one hard link (one may live outside the root). @default false */
  allowHardLinks?: boolean | undefined;
}

/**
 * Reads a regular file inside `root` without a window between check and use: resolves it as
 * {@link resolveInsideRoot}, opens it with `O_NOFOLLOW`, then checks the opened descriptor itself (its
 * real path through `/proc/self/fd` where there is one, its device and inode against the checked path
 * elsewhere), so a directory swapped for a symlink after the check is caught. A file with more than one
 * hard link is refused unless `allowHardLinks`: another of its names may lie outside the root.
 */
export async function readInsideRoot(
  root: string,
  requested: string,
  options: ReadInsideRootOptions = {},
): Promise<{ real: string; bytes: Buffer }> {
  const real = await resolveInsideRoot(root, requested);
  const realRoot = await realpath(path.resolve(root));
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw new PathOutsideRootError(requested, 'it changed while being opened (now a link or gone)');
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new PathOutsideRootError(requested, 'not a regular file');
    if (info.nlink > 1 && !options.allowHardLinks) {
      throw new PathOutsideRootError(
        requested,
        `it has ${info.nlink} hard links, and another may lie outside the allowed directory (allowHardLinks: true accepts it)`,
      );
    }
    const opened = await openedPath(handle);
    if (opened !== undefined) {
      if (!isInside(realRoot, opened)) {
        throw new PathOutsideRootError(requested, 'the opened file lies outside the allowed directory');
      }
    } else {
      // No /proc: the path must still name the very file that was opened.
      const again = await stat(await realpath(real)).catch(() => undefined);
      if (again === undefined || again.dev !== info.dev || again.ino !== info.ino) {
        throw new PathOutsideRootError(requested, 'it changed while being opened');
      }
    }
    return { real, bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}

/** The real path of an open descriptor where the system tells it (Linux `/proc/self/fd`), else undefined. */
async function openedPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}
