// Runs in the browser (bundled into the page): no Buffer, only atob, DataView and Blob.

/**
 * The pieces of a spoken answer as a playable wav: a stream's pieces are 24 kHz mono 16-bit pcm and get
 * a RIFF header; a non-streamed answer already is one wav.
 */
export function toWavBlob(pieces: string[]): Blob {
  const chunks = pieces.map((piece) => Uint8Array.from(atob(piece), (c) => c.charCodeAt(0)));
  const first = chunks[0];
  if (chunks.length === 1 && first && String.fromCharCode(...first.subarray(0, 4)) === 'RIFF') {
    return new Blob([first], { type: 'audio/wav' });
  }
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const header = new DataView(new ArrayBuffer(44));
  const text = (offset: number, value: string) => {
    for (let i = 0; i < value.length; i++) header.setUint8(offset + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  header.setUint32(4, 36 + length, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true);
  header.setUint16(22, 1, true);
  header.setUint32(24, 24_000, true);
  header.setUint32(28, 48_000, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, length, true);
  return new Blob([header, ...chunks], { type: 'audio/wav' });
}
