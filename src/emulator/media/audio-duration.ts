/** Duration in seconds of a WAV or MP3 file, or undefined when the bytes are neither. */
export function readAudioDuration(bytes: Buffer): number | undefined {
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WAVE'
  ) {
    return wavDuration(bytes);
  }
  return mp3Duration(bytes);
}

function wavDuration(bytes: Buffer): number | undefined {
  let byteRate: number | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 20 <= bytes.length) byteRate = bytes.readUInt32LE(offset + 16);
    if (id === 'data') {
      if (!byteRate) return undefined;
      // Streaming writers put 0 or 0xFFFFFFFF as the data size; fall back to what is actually there.
      const available = bytes.length - offset - 8;
      const dataSize = size === 0 || size > available ? available : size;
      return dataSize / byteRate;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

const BITRATES: Record<string, number[]> = {
  // kbps by index, for MPEG-1 and MPEG-2/2.5, per layer
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000], // MPEG-2.5
};

interface FrameHeader {
  length: number;
  samples: number;
  sampleRate: number;
}

function parseFrameHeader(bytes: Buffer, offset: number): FrameHeader | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const b1 = bytes[offset + 1]!;
  if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  if (versionBits === 1 || layerBits === 0) return undefined;
  const layer = 4 - layerBits;
  const b2 = bytes[offset + 2]!;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const v1 = versionBits === 3;
  const bitrate = BITRATES[`${v1 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000;
  const sampleRate = SAMPLE_RATES[versionBits]![rateIndex]!;
  const padding = (b2 >> 1) & 1;
  if (layer === 1)
    return { length: (Math.floor((12 * bitrate) / sampleRate) + padding) * 4, samples: 384, sampleRate };
  const samples = layer === 3 && !v1 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * bitrate) / sampleRate) + padding, samples, sampleRate };
}

function mp3Duration(bytes: Buffer): number | undefined {
  let offset = 0;
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'ID3') {
    // ID3v2 size is "syncsafe": 4 bytes of 7 bits.
    const size =
      ((bytes[6]! & 0x7f) << 21) |
      ((bytes[7]! & 0x7f) << 14) |
      ((bytes[8]! & 0x7f) << 7) |
      (bytes[9]! & 0x7f);
    offset = 10 + size;
  }
  while (offset < bytes.length && !parseFrameHeader(bytes, offset)) offset += 1;
  const first = parseFrameHeader(bytes, offset);
  if (!first) return undefined;
  const xingFrames = readXingFrames(bytes, offset);
  if (xingFrames !== undefined) return (xingFrames * first.samples) / first.sampleRate;
  // No VBR header: walk the frames, which is exact for CBR and VBR alike.
  let seconds = 0;
  let frames = 0;
  let frame: FrameHeader | undefined = first;
  while (frame && frame.length > 0) {
    seconds += frame.samples / frame.sampleRate;
    offset += frame.length;
    frames += 1;
    frame = parseFrameHeader(bytes, offset);
  }
  return frames > 0 ? seconds : undefined;
}

function readXingFrames(bytes: Buffer, frameOffset: number): number | undefined {
  for (const tag of ['Xing', 'Info']) {
    const at = bytes.indexOf(tag, frameOffset + 4, 'latin1');
    if (at < 0 || at > frameOffset + 40) continue;
    const flags = bytes.readUInt32BE(at + 4);
    return flags & 1 ? bytes.readUInt32BE(at + 8) : undefined;
  }
  return undefined;
}
