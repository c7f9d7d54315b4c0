import { describe, expect, it } from 'vitest';
import { readAudioDuration } from '../../src/emulator/media/audio-duration.js';
import { highDetailImageTokens, readImageSize } from '../../src/emulator/media/image-size.js';
import { crc32, encodePng } from '../../src/emulator/media/png.js';
import { pcmToWav, SPEECH_SAMPLE_RATE, synthesizePcm } from '../../src/emulator/media/wav.js';
import { mp3OfFrames, wavOfSeconds } from '../helpers/media-bytes.js';

describe('emulator media', () => {
  describe('when computing CRC-32', () => {
    it('should match the standard check value', () => {
      expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    });
  });

  describe('when encoding a PNG', () => {
    it('should write the signature and an IHDR of the given size', () => {
      const png = encodePng(2, 1, new Uint8Array([255, 0, 0, 0, 255, 0]));
      expect(png.toString('latin1', 12, 16)).toBe('IHDR');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([2, 1]);
    });
  });

  describe('when reading image sizes', () => {
    it('should read PNG, GIF and JPEG headers', () => {
      expect(readImageSize(encodePng(3, 2, new Uint8Array(18)))).toEqual({ width: 3, height: 2 });
      const gif = Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 40, 0, 30, 0]);
      expect(readImageSize(gif)).toEqual({ width: 40, height: 30 });
      // SOI, an APP0 segment of length 4, then SOF0 with height 480 and width 640.
      const jpeg = Buffer.from([
        0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 3, 0, 0,
      ]);
      expect(readImageSize(jpeg)).toEqual({ width: 640, height: 480 });
      expect(readImageSize(Buffer.from('nope'))).toBeUndefined();
    });

    it('should price high detail by tiles, with a typical cost when the size is unknown', () => {
      expect(highDetailImageTokens({ width: 4096, height: 4096 })).toBe(85 + 170 * 4);
      expect(highDetailImageTokens(undefined)).toBe(765);
    });
  });

  describe('when reading durations', () => {
    it('should read wav durations from the header', () => {
      expect(readAudioDuration(wavOfSeconds(5.5))).toBeCloseTo(5.5, 3);
      const stereo = pcmToWav(Buffer.alloc(44_100 * 4 * 2), 44_100, 2);
      expect(readAudioDuration(stereo)).toBeCloseTo(2, 3);
    });

    it('should sum mp3 frames, after an ID3 tag or without one', () => {
      expect(readAudioDuration(mp3OfFrames(383))).toBeCloseTo((383 * 1152) / 44_100, 3);
      expect(readAudioDuration(mp3OfFrames(10, false))).toBeCloseTo((10 * 1152) / 44_100, 3);
    });

    it('should answer undefined for other bytes', () => {
      expect(readAudioDuration(Buffer.from('plain text'))).toBeUndefined();
    });
  });

  describe('when synthesising speech', () => {
    it('should be deterministic 16-bit pcm at 24 kHz, longer for longer text', () => {
      const short = synthesizePcm('hi');
      expect(synthesizePcm('hi').equals(short)).toBe(true);
      expect(synthesizePcm('hello there my friend').length).toBeGreaterThan(short.length);
      expect(readAudioDuration(pcmToWav(short))).toBeCloseTo(short.length / 2 / SPEECH_SAMPLE_RATE, 5);
    });
  });
});
