import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../../transport/errors/svc-error.js';

/** A local path given to a file tool lies outside the allowed root, or is not a readable regular file. */
export class PathOutsideRootError extends SvcError {
  /** The path as the model gave it. */
  readonly requestedPath: string;

  constructor(requestedPath: string, reason: string) {
    super(`Refused path "${requestedPath}": ${reason}`);
    this.requestedPath = requestedPath;
  }
}

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
