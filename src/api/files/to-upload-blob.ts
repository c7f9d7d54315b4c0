import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { RequestValidationError } from '../errors.js';
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
  if (typeof file === 'string') return { blob: await openPath(file), filename: basename(file) };
  // The DOM's Blob (the page typechecks this file through the client's event types) refuses a Uint8Array
  // that may sit on a SharedArrayBuffer; uploads never do.
  if (file instanceof Uint8Array)
    return { blob: new Blob([file as Uint8Array<ArrayBuffer>]), filename: undefined };
  if (file instanceof Blob) {
    const name = (file as { name?: unknown }).name;
    return { blob: file, filename: typeof name === 'string' && name ? name : undefined };
  }
  const path = (file as { path?: unknown }).path;
  const filename =
    typeof path === 'string' ? basename(path) : Buffer.isBuffer(path) ? basename(path.toString()) : undefined;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of file as AsyncIterable<Uint8Array | string>) {
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array<ArrayBuffer>));
  }
  return { blob: new Blob(parts), filename };
}

async function openPath(path: string): Promise<Blob> {
  try {
    // stat first: openAsBlob reports a missing file as an invalid argument, not as ENOENT.
    if (!(await stat(path)).isFile())
      throw Object.assign(new Error('not a file'), { code: 'not a regular file' });
    return await openAsBlob(path);
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    throw new RequestValidationError({
      operation: 'files.upload',
      issues: [
        {
          path: 'file',
          message: `cannot open "${path}"${code ? ` (${code})` : ''}`,
          code: 'request_params_invalid',
        },
      ],
      cause,
    });
  }
}
