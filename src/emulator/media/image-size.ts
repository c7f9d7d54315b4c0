/** Width and height of a PNG, JPEG, GIF or WebP image from its header, or undefined. */
export function readImageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (
    bytes.length >= 30 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    if (bytes.toString('latin1', 12, 16) === 'VP8X') {
      return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
    }
    return undefined;
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the JPEG segments to the first start-of-frame marker.
    let offset = 2;
    while (offset + 9 < bytes.length && bytes[offset] === 0xff) {
      const marker = bytes[offset + 1]!;
      const length = bytes.readUInt16BE(offset + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: bytes.readUInt16BE(offset + 7), height: bytes.readUInt16BE(offset + 5) };
      }
      offset += 2 + length;
    }
  }
  return undefined;
}

/**
 * Tokens of a `detail: high` image: scaled to fit 2048x2048, then its short side to 768, counted in 512-pixel
 * tiles (170 each) plus a base of 85, the usual scheme for tiled vision models.
 */
export function highDetailImageTokens(size: { width: number; height: number } | undefined): number {
  if (!size || size.width <= 0 || size.height <= 0) return 765;
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shrink = Math.min(1, 768 / Math.min(width, height));
  width *= shrink;
  height *= shrink;
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}
