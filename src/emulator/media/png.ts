import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309) as PNG chunks use it. */
export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes 8-bit RGB pixels (`width * height * 3` bytes, rows top to bottom) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    // Filter byte 0 (None) per row: fast to encode, valid for every decoder.
    raw[y * (stride + 1)] = 0;
    raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** 32-bit FNV-1a hash of a string. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A deterministic picture for a prompt and seed: a two-colour gradient with diagonal bands and a disc. */
export function generateImagePng(prompt: string, seed: number, width: number, height: number): Buffer {
  const h = hashString(`${seed}:${prompt}`);
  const h2 = hashString(`${prompt}:${seed}:2`);
  const a = [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
  const b = [h2 & 0xff, (h2 >>> 8) & 0xff, (h2 >>> 16) & 0xff];
  const band = 16 + ((h >>> 24) % 48);
  const cx = width * (0.25 + ((h2 >>> 24) % 50) / 100);
  const cy = height * 0.5;
  const r2 = (Math.min(width, height) / 4) ** 2;
  const rgb = new Uint8Array(width * height * 3);
  const row = new Uint8Array(width * 3);
  for (let y = 0; y < height; y++) {
    const t = y / height;
    for (let x = 0; x < width; x++) {
      const inDisc = (x - cx) ** 2 + (y - cy) ** 2 < r2;
      const stripe = Math.floor((x + y) / band) % 2 === 0 ? 1 : 0.8;
      for (let c = 0; c < 3; c++) {
        const base = a[c]! * (1 - t) + b[c]! * t;
        row[x * 3 + c] = inDisc ? 255 - base : base * stripe;
      }
    }
    rgb.set(row, y * width * 3);
  }
  return encodePng(width, height, rgb);
}
