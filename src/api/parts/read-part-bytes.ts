import { readFileSync } from 'node:fs';
import { PartInputError } from '../errors.js';

/** Bytes of a part input: a Buffer/Uint8Array as is, a string as a file path (read synchronously). */
export function readPartBytes(helper: string, input: string | Uint8Array): Uint8Array {
  if (typeof input !== 'string') return input;
  try {
    return readFileSync(input);
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    throw new PartInputError({
      field: helper,
      rule: `cannot read file "${input}"${code ? ` (${code})` : ''}`,
      cause,
    });
  }
}

/** True for an http or https address. */
export function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}
