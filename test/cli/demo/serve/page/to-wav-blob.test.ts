import { describe, expect, it } from 'vitest';
import { pcmToWav } from '../../../../../src/api/audio/pcm-to-wav.js';
import { toWavBlob } from '../../../../../src/cli/demo/serve/page/to-wav-blob.js';

describe('toWavBlob', () => {
  describe('when given one piece that already is a wav', () => {
    it('should keep it as it is', async () => {
      const wav = pcmToWav(Buffer.alloc(480));
      const blob = toWavBlob([wav.toString('base64')]);
      expect(Buffer.from(await blob.arrayBuffer()).equals(wav)).toBe(true);
    });
  });
});
