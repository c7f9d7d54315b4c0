// PCM as the service streams it: 24 kHz, mono, 16-bit.
const PCM_BYTES_PER_SECOND = 24_000 * 2;

/** Seconds of a base64 wav (from its header) or raw pcm (24 kHz mono 16-bit); 0 for other formats. */
export function audioSeconds(base64: string): number {
  const data = base64.slice(base64.indexOf(',') + 1);
  const bytes = Buffer.from(data, 'base64');
  if (
    bytes.length >= 44 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WAVE'
  ) {
    const byteRate = bytes.readUInt32LE(28);
    return byteRate > 0 ? (bytes.length - 44) / byteRate : 0;
  }
  // A data URI names its format: anything but wav (mp3) has no cheap duration here.
  if (base64.startsWith('data:')) return 0;
  return bytes.length / PCM_BYTES_PER_SECOND;
}
