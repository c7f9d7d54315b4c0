import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { readAudioDuration } from '../../src/emulator/media/audio-duration.js';
import { crc32 } from '../../src/emulator/media/png.js';
import { callEmulator, upload } from '../helpers/call-emulator.js';
import { mp3OfFrames, wavOfSeconds } from '../helpers/media-bytes.js';

/** Parses a PNG: checks the signature and every chunk CRC, returns IHDR fields and the inflated data size. */
function parsePng(png: Buffer): { width: number; height: number; colourType: number; rawBytes: number } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  let header: Buffer | undefined;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    if (type === 'IEND') sawEnd = true;
    offset += 12 + length;
  }
  expect(sawEnd).toBe(true);
  if (!header) throw new Error('no IHDR');
  return {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    colourType: header[9] ?? -1,
    rawBytes: inflateSync(Buffer.concat(idat)).length,
  };
}

describe('emulator voices and images', () => {
  let emu: Emulator;
  const post = (path: string, body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body);
  const storage = async (bytes: Buffer, name: string) =>
    (await upload(emu.baseURL, emu.apiKey, bytes, 'storage', name)).json<{ id: string }>().id;

  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(() => emu.close());

  describe('when cloning a voice', () => {
    it('should accept 5-10 s of wav, mark a repeat as duplicated and list the voice', async () => {
      const fileId = await storage(wavOfSeconds(7.5), 'seven.wav');
      const first = (
        await post('/v1/audio/voices', { model: 'svc-tts-2', file_id: fileId, sample_text: 'Hi there' })
      ).json<Record<string, unknown>>();
      expect(first).toMatchObject({ object: 'audio.voice', sample_text: 'Hi there' });
      expect(first.id).toMatch(/^voice-/);
      expect(first).not.toHaveProperty('duplicated');
      const wav = Buffer.from(String(first.sample_audio), 'base64');
      expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
      expect(readAudioDuration(wav)).toBeGreaterThan(0.3);
      const again = (await post('/v1/audio/voices', { model: 'svc-tts-2', file_id: fileId })).json();
      expect(again).toMatchObject({ id: first.id, duplicated: true });
      const list = (await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/audio/voices')).json<{
        data: unknown[];
      }>();
      expect(list).toMatchObject({ object: 'list', has_more: false, first_id: first.id });
      expect(list.data).toEqual([{ id: first.id, file_id: fileId, created_at: expect.any(Number) }]);
    });

    it('should read mp3 durations and refuse audio outside 5-10 s naming file_id', async () => {
      // 1152 samples per frame at 44.1 kHz: 230 frames ~ 6.0 s, 100 frames ~ 2.6 s.
      const ok = await storage(mp3OfFrames(230), 'six.mp3');
      expect((await post('/v1/audio/voices', { model: 'svc-tts-mini', file_id: ok })).status).toBe(200);
      for (const bytes of [mp3OfFrames(100), wavOfSeconds(11)]) {
        const res = await post('/v1/audio/voices', {
          model: 'svc-tts-mini',
          file_id: await storage(bytes, 'bad.wav'),
        });
        expect(res.status).toBe(400);
        expect(res.json<{ error: { message: string } }>().error.message).toMatch(
          /^file_id: audio lasts .* 5 to 10 seconds/,
        );
      }
      const notAudio = await post('/v1/audio/voices', {
        model: 'svc-tts-mini',
        file_id: await storage(Buffer.from('hi'), 'x.wav'),
      });
      expect(notAudio.text).toContain('not a wav or mp3');
    });

    it('should refuse a wrong model, a long sample_text, a non-storage file and unknown ids', async () => {
      const fileId = await storage(wavOfSeconds(6), 'six.wav');
      expect((await post('/v1/audio/voices', { model: 'svc-3.5-flash', file_id: fileId })).text).toContain(
        'model:',
      );
      const long = await post('/v1/audio/voices', {
        model: 'svc-tts-2',
        file_id: fileId,
        sample_text: 'x'.repeat(51),
      });
      expect(long.text).toContain('sample_text');
      const extract = (await upload(emu.baseURL, emu.apiKey, 'x', 'file-extract', 'x.txt')).json<{
        id: string;
      }>().id;
      expect((await post('/v1/audio/voices', { model: 'svc-tts-2', file_id: extract })).text).toContain(
        'storage',
      );
      expect((await post('/v1/audio/voices', { model: 'svc-tts-2', file_id: 'file-none' })).status).toBe(404);
    });

    it('should page voices with cursors', async () => {
      const all = (await callEmulator(emu.baseURL, emu.apiKey, 'GET', '/v1/audio/voices?order=asc')).json<{
        data: Array<{ id: string }>;
      }>();
      expect(all.data.length).toBeGreaterThanOrEqual(2);
      const page = (
        await callEmulator(
          emu.baseURL,
          emu.apiKey,
          'GET',
          `/v1/audio/voices?order=asc&limit=1&after=${all.data[0]?.id}`,
        )
      ).json<{ data: Array<{ id: string }> }>();
      expect(page.data.map((v) => v.id)).toEqual([all.data[1]?.id]);
    });
  });

  describe('when generating images', () => {
    it('should return a valid PNG of the requested size, the same for the same prompt and seed', async () => {
      const body = {
        model: 'svc-1x-medium',
        prompt: 'a red fox',
        size: '1280x800',
        seed: 42,
        response_format: 'b64_json',
      };
      const res = (await post('/v1/images/generations', body)).json<{
        created: number;
        data: Array<Record<string, unknown>>;
      }>();
      expect(res.data[0]).toMatchObject({ seed: 42, finish_reason: 'success' });
      const png = Buffer.from(String(res.data[0]?.image), 'base64');
      expect(parsePng(png)).toEqual({
        width: 1280,
        height: 800,
        colourType: 2,
        rawBytes: (1280 * 3 + 1) * 800,
      });
      const again = (await post('/v1/images/generations', body)).json<{ data: Array<{ image: string }> }>();
      expect(again.data[0]?.image).toBe(res.data[0]?.image);
      const other = (await post('/v1/images/generations', { ...body, seed: 43 })).json<{
        data: Array<{ image: string }>;
      }>();
      expect(other.data[0]?.image).not.toBe(res.data[0]?.image);
    });

    it('should serve a url by default and pick a system seed for 0', async () => {
      const res = (
        await post('/v1/images/generations', {
          model: 'svc-1x-medium',
          prompt: 'x',
          seed: 0,
          size: '256x256',
        })
      ).json<{
        data: Array<{ url: string; seed: number }>;
      }>();
      expect(res.data[0]?.seed).toBeGreaterThan(0);
      expect(res.data[0]?.url.startsWith(`${emu.baseURL}/__emulator/images/`)).toBe(true);
      const download = await fetch(res.data[0]?.url ?? '');
      expect(download.headers.get('content-type')).toBe('image/png');
      expect(parsePng(Buffer.from(await download.arrayBuffer()))).toMatchObject({ width: 256, height: 256 });
    });

    it.each([
      [{ model: 'svc-3.5-flash', prompt: 'x' }, 'model'],
      [{ model: 'svc-1x-medium' }, 'prompt'],
      [{ model: 'svc-1x-medium', prompt: 'x'.repeat(1025) }, 'prompt'],
      [{ model: 'svc-1x-medium', prompt: 'x', size: '100x100' }, 'size'],
      [{ model: 'svc-1x-medium', prompt: 'x', n: 2 }, 'n'],
      [{ model: 'svc-1x-medium', prompt: 'x', steps: 101 }, 'steps'],
      [{ model: 'svc-1x-medium', prompt: 'x', cfg_scale: 11 }, 'cfg_scale'],
      [{ model: 'svc-1x-medium', prompt: 'x', style_reference: { weight: 3 } }, 'style_reference.source_url'],
    ])('should refuse a bad request naming the field (%#)', async (body, field) => {
      const res = await post('/v1/images/generations', body);
      expect(res.status).toBe(400);
      expect(res.json<{ error: { message: string } }>().error.message).toContain(`${field}:`);
    });
  });
});
