import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import type { Uploadable } from '../types/files.js';

/** The content and name of a file to upload. */
export interface UploadBlob {
  blob: Blob;
  filename: string | undefined;
}

/**
 * Turns any accepted upload input into a Blob and its natural file name: a path is opened lazily
 * (`fs.openAsBlob`, not read into memory), bytes are wrapped, a stream is read to its end.
 */
export async function toUploadBlob(file: Uploadable): Promise<UploadBlob> {
  if (typeof file === 'string') return { blob: await openAsBlob(file), filename: basename(file) };
  if (file instanceof Uint8Array) return { blob: new Blob([file]), filename: undefined };
  if (file instanceof Blob) {
    const name = (file as { name?: unknown }).name;
    return { blob: file, filename: typeof name === 'string' && name ? name : undefined };
  }
  const path = (file as { path?: unknown }).path;
  const filename =
    typeof path === 'string' ? basename(path) : Buffer.isBuffer(path) ? basename(path.toString()) : undefined;
  const parts: Uint8Array[] = [];
  for await (const chunk of file as AsyncIterable<Uint8Array | string>) {
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return { blob: new Blob(parts), filename };
}

/** True when `value` is something `toUploadBlob` can read. */
export function isUploadable(value: unknown): value is Uploadable {
  if (typeof value === 'string' || value instanceof Uint8Array || value instanceof Blob) return true;
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
