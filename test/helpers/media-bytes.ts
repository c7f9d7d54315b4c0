import { deflateSync } from 'node:zlib';
import { pcmToWav } from '../../src/emulator/media/wav.js';

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A complete, valid 1x1 red PNG. */
export function tinyPng(): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const pixels = deflateSync(Buffer.from([0, 255, 0, 0]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The start of a JFIF JPEG. */
export function jpegHead(): Buffer {
  return Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x10,
    ...Buffer.from('JFIF\0'),
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
  ]);
}

/** A RIFF/WEBP container head. */
export function webpHead(): Buffer {
  return Buffer.concat([Buffer.from('RIFF'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
}

/** A one-frame GIF89a; `animated` adds the NETSCAPE2.0 looping extension animations carry. */
export function gif({ animated = false } = {}): Buffer {
  const header = Buffer.concat([
    Buffer.from('GIF89a'),
    Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]),
  ]);
  const loop = Buffer.concat([
    Buffer.from([0x21, 0xff, 0x0b]),
    Buffer.from('NETSCAPE2.0'),
    Buffer.from([3, 1, 0, 0, 0]),
  ]);
  const frame = Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b]);
  return Buffer.concat(animated ? [header, loop, frame] : [header, frame]);
}

/** A valid WAV of 4 silent 16-bit mono samples. */
export function tinyWav(): Buffer {
  const data = Buffer.alloc(8);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** An MP3 with an ID3v2 tag, or (`tagged: false`) starting at an MPEG-1 layer III frame header. */
export function mp3({ tagged = true } = {}): Buffer {
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
  const tag = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0])]);
  return tagged ? Buffer.concat([tag, frame]) : frame;
}

/** A WAV file of `seconds` of silence at 24 kHz mono 16-bit. */
export function wavOfSeconds(seconds: number): Buffer {
  return pcmToWav(Buffer.alloc(Math.round(seconds * 24_000) * 2));
}

/** An MP3 byte stream of `frames` MPEG-1 layer III frames (128 kbps, 44.1 kHz): 1152 samples each. */
export function mp3OfFrames(frames: number, withId3 = true): Buffer {
  const header = Buffer.from([0xff, 0xfb, 0x90, 0x00]); // MPEG-1 L3, 128 kbps, 44100 Hz, no padding
  const frameLength = Math.floor((144 * 128_000) / 44_100);
  const frame = Buffer.alloc(frameLength);
  header.copy(frame);
  const id3 = withId3
    ? Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10, ...new Array(10).fill(0)])
    : Buffer.alloc(0);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}
