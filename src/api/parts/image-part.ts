import { PartInputError } from '../errors.js';
import type { ContentPart } from '../types/chat.js';
import { describeLeadingBytes, detectImageFormat, isAnimatedGif } from './detect-media-format.js';
import { isHttpUrl, readPartBytes } from './read-part-bytes.js';

/** An `image_url` content part. */
export type ImagePart = Extract<ContentPart, { type: 'image_url' }>;

/** Options of {@link imagePart}. */
export interface ImagePartOptions {
  /** `low` (scaled, ~400 tokens) or `high` (more detail, for OCR and large images). The service default is `low`. */
  detail?: 'low' | 'high';
}

const dataUriPattern = /^data:image\/(jpe?g|png|webp|gif);base64,/i;

/**
 * Builds an `image_url` part from an http(s) URL (passed through), a `data:image/...` URI, a file path or
 * bytes. The format is detected from the bytes (jpeg, png, webp, static gif); anything else is refused.
 *
 * @example
 * { role: 'user', content: [textPart('What is this?'), imagePart('./cat.png', { detail: 'high' })] }
 */
export function imagePart(input: string | Uint8Array, { detail }: ImagePartOptions = {}): ImagePart {
  let url: string;
  if (typeof input === 'string' && isHttpUrl(input)) {
    url = input;
  } else if (typeof input === 'string' && input.startsWith('data:')) {
    if (!dataUriPattern.test(input)) {
      throw new PartInputError({
        field: 'imagePart',
        rule: 'a data URI must be data:image/<jpeg|png|webp|gif>;base64,...',
      });
    }
    url = input;
  } else {
    const bytes = readPartBytes('imagePart', input);
    const format = detectImageFormat(bytes);
    if (!format) {
      throw new PartInputError({
        field: 'imagePart',
        rule: `unsupported image format (${describeLeadingBytes(bytes)}); the service accepts jpeg, png, webp and static gif`,
      });
    }
    if (format === 'gif' && isAnimatedGif(bytes)) {
      throw new PartInputError({
        field: 'imagePart',
        rule: 'animated GIFs are not accepted; the service takes static GIFs only',
      });
    }
    url = `data:image/${format};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
  }
  return { type: 'image_url', image_url: detail ? { url, detail } : { url } };
}
