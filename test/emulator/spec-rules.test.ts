import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/api/errors.js';
import { validateChatCompletionParams } from '../../src/api/schemas/chat-completion-params-validator.js';
import { validateImageGenerateParams } from '../../src/api/schemas/image-generate-params-schema.js';
import { validateListQuery } from '../../src/api/schemas/list-query-schema.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { callEmulator } from '../helpers/call-emulator.js';
import { gif } from '../helpers/media-bytes.js';

// One test per rule where the client and the emulator were stricter or looser than api-spec.md; each
// quotes the spec line it follows.

describe('spec rules the client and the emulator follow line by line', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());
  const post = (path: string, body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body);

  describe('when an assistant turn has content null and no tool calls', () => {
    // "assistant | content | string or null | text"
    const body = {
      model: 'svc-3.5-flash',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'Are you there?' },
      ],
    };
    it('should be accepted by the client and the emulator', async () => {
      expect(() => validateChatCompletionParams(body)).not.toThrow();
      const res = await post('/v1/chat/completions', body);
      expect(res.status, res.text).toBe(200);
    });
  });

  describe('when an image request has a negative seed', () => {
    // "seed | integer | no | | omitted or 0 means a system-generated seed": no bound is given.
    const body = { model: 'svc-1x-medium', prompt: 'a red kite', seed: -42, response_format: 'b64_json' };
    it('should be accepted, and a fraction still refused', async () => {
      expect(() => validateImageGenerateParams(body)).not.toThrow();
      expect(() => validateImageGenerateParams({ ...body, seed: 1.5 })).toThrow(/seed: must be an integer/);
      const res = await post('/v1/images/generations', body);
      expect(res.status, res.text).toBe(200);
      expect(res.json<{ data: Array<{ seed: number }> }>().data[0]?.seed).toBe(-42);
    });
  });

  describe('when a list limit is a string', () => {
    // "limit | integer (documented as string) | 20 | 1 to 100"
    it('should accept "20" and refuse "0", "101" and "ten"', () => {
      expect(() => validateListQuery({ limit: '20' })).not.toThrow();
      for (const limit of ['0', '101', 'ten', '2.5']) {
        expect(() => validateListQuery({ limit }), limit).toThrow(RequestValidationError);
      }
    });
  });

  describe('when an image part is an animated GIF data URI', () => {
    // "Formats: jpg/jpeg, png, webp, static gif."
    const withGif = (bytes: Buffer) => ({
      model: 'svc-1o-turbo-vision',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/gif;base64,${bytes.toString('base64')}` } },
          ],
        },
      ],
    });
    it('should be refused by the client and the emulator, naming the part, while a static GIF passes', async () => {
      expect(() => validateChatCompletionParams(withGif(gif({ animated: true })))).toThrow(
        /messages\[0\]\.content\[1\]\.image_url\.url: an animated GIF is not supported/,
      );
      const refused = await post('/v1/chat/completions', withGif(gif({ animated: true })));
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/animated GIF/);
      const accepted = await post('/v1/chat/completions', withGif(gif()));
      expect(accepted.status, accepted.text).toBe(200);
    });
  });

  describe('when a request is refused', () => {
    // "plan channel, `model` other than `svc-router-v1` | HTTP 400, code `request_params_invalid`"
    it('should name the code in error.code as well as error.type', async () => {
      const res = await post('/svc_plan/v1/chat/completions', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        error: { type: 'request_params_invalid', code: 'request_params_invalid' },
      });
    });
  });
});
