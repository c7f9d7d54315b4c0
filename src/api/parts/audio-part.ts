import { PartInputError } from '../errors.js';
import type { ContentPart } from '../types/chat.js';
import { describeLeadingBytes, detectAudioFormat } from './detect-media-format.js';
import { readPartBytes } from './read-part-bytes.js';

/** An `input_audio` content part. */
export type AudioPart = Extract<ContentPart, { type: 'input_audio' }>;

/**
 * Builds an `input_audio` part (`data:audio/<mp3|wav>;base64,...`) from a file path or bytes. The format is
 * detected from the bytes only; anything but mp3 and wav is refused.
 */
export function audioPart(input: string | Uint8Array): AudioPart {
  const bytes = readPartBytes('audioPart', input);
  const format = detectAudioFormat(bytes);
  if (!format) {
    throw new PartInputError({
      field: 'audioPart',
      rule: `unsupported audio format (${describeLeadingBytes(bytes)}); the service accepts mp3 and wav only`,
    });
  }
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return { type: 'input_audio', input_audio: { data: `data:audio/${format};base64,${base64}` } };
}
