/** Image formats the service accepts in `image_url` data URIs. */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif';

/** Audio formats the service accepts in `input_audio` data URIs. */
export type AudioFormat = 'mp3' | 'wav';

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (bytes[offset + i] !== signature[i]) return false;
  return true;
}

const ascii = (text: string): number[] => Array.from(text, (char) => char.charCodeAt(0));
const RIFF = ascii('RIFF');

/** The image format by magic bytes, or `undefined` for anything else. */
export function detectImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return undefined;
}

/** The audio format by magic bytes: an ID3 tag or an MPEG frame sync for mp3, RIFF/WAVE for wav. */
export function detectAudioFormat(bytes: Uint8Array): AudioFormat | undefined {
  if (startsWith(bytes, RIFF) && startsWith(bytes, ascii('WAVE'), 8)) return 'wav';
  if (startsWith(bytes, ascii('ID3'))) return 'mp3';
  // MPEG audio frame header: 11 set sync bits, then a layer other than "reserved" (00).
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0 && (bytes[1]! & 0x06) !== 0) {
    return 'mp3';
  }
  return undefined;
}

/**
 * True for an animated GIF (the spec allows static GIFs only), recognised by the looping application
 * extension (`NETSCAPE2.0` / `ANIMEXTS1.0`) that animation encoders write.
 */
export function isAnimatedGif(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return text.includes('NETSCAPE2.0') || text.includes('ANIMEXTS1.0');
}

/** A short hex dump of the first bytes, for error messages about unknown formats. */
export function describeLeadingBytes(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 8)).toString('hex');
  return bytes.length === 0 ? 'no bytes at all' : `leading bytes 0x${head}`;
}
