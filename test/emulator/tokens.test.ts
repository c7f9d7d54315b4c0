import { countTokens as countWithLibrary } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { generateImagePng } from '../../src/emulator/media/png.js';
import { callEmulator } from '../helpers/call-emulator.js';

describe('emulator token counting', () => {
  let emu: Emulator;
  const post = (path: string, body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body);
  const total = async (messages: unknown[]) =>
    (await post('/v1/token/count', { model: 'svc-3.5-flash', messages })).json<{
      data: { total_tokens: number };
    }>().data.total_tokens;

  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(() => emu.close());

  describe('when counting text', () => {
    it('should count with the real tokenizer, both formats agreeing', async () => {
      const text = 'The quick brown fox jumps over the lazy dog, twice.';
      const chat = await total([{ role: 'user', content: text }]);
      expect(chat).toBe(countWithLibrary(text) + 7);
      const messages = await post('/v1/messages/count_tokens', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      });
      expect(messages.json()).toEqual({ input_tokens: chat });
      expect(messages.headers['content-type']).toContain('application/json');
    });

    it('should match the prompt_tokens of a chat completion', async () => {
      const messages = [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello!' },
      ];
      const completion = await post('/v1/chat/completions', { model: 'svc-1o-turbo-vision', messages });
      expect(completion.json<{ usage: { prompt_tokens: number } }>().usage.prompt_tokens).toBe(
        await total(messages),
      );
    });
  });

  describe('when counting images', () => {
    it('should charge about 400 tokens for a low-detail image', async () => {
      const text = await total([{ role: 'user', content: [{ type: 'text', text: 'look' }] }]);
      const withImage = await total([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ]);
      expect(withImage - text).toBe(400);
    });
  });

  describe('when a high-detail image is sent', () => {
    it('should charge by 512-pixel tiles of the scaled image', async () => {
      const prompt = async (png: Buffer) => {
        const res = await post('/v1/chat/completions', {
          model: 'svc-1o-turbo-vision',
          messages: [
            {
              role: 'user',
              content: [
                {
                  type: 'image_url',
                  image_url: { url: `data:image/png;base64,${png.toString('base64')}`, detail: 'high' },
                },
              ],
            },
          ],
        });
        return res.json<{ usage: { prompt_tokens: number } }>().usage.prompt_tokens;
      };
      const small = await prompt(generateImagePng('a', 1, 256, 256));
      const wide = await prompt(generateImagePng('a', 1, 1280, 800));
      // 256x256: one tile (85 + 170); 1280x800 -> 1229x768: 3 x 2 tiles (85 + 6 * 170).
      expect(wide - small).toBe(5 * 170);
    });
  });

  describe('when the body breaks a rule', () => {
    it('should refuse tool messages and video parts in /v1/token/count, naming the field', async () => {
      const tool = await post('/v1/token/count', {
        model: 'm',
        messages: [{ role: 'tool', content: 'x', tool_call_id: 'a' }],
      });
      expect(tool.status).toBe(400);
      expect(tool.text).toContain('messages[0].role');
      const video = await post('/v1/token/count', {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'video_url', video_url: { url: 'https://e.com/v.mp4' } }] },
        ],
      });
      expect(video.text).toContain('messages[0].content[0].type');
      expect((await post('/v1/messages/count_tokens', { messages: [] })).text).toContain('model');
    });
  });
});
