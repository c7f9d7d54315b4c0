import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { wavOfSeconds } from '../helpers/media-bytes.js';

describe('emulator with our SvcClient', () => {
  let emu: Emulator;
  let client: SvcClient;

  beforeAll(async () => {
    emu = await startEmulator({ parseDelayMs: 30 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  describe('when answering questions from a knowledge base (RAG end to end)', () => {
    it('should cite the file holding the answer', async () => {
      const herons = await client.files.upload({
        file: Buffer.from('Grey herons stand still in shallow water and spear fish with their beaks.'),
        purpose: 'retrieval-text',
        filename: 'herons.txt',
      });
      const owls = await client.files.upload({
        file: Buffer.from('Barn owls hunt voles and mice at night, finding them by sound alone.'),
        purpose: 'retrieval-text',
        filename: 'owls.txt',
      });
      expect(herons.status).toBe('processed');
      for (const file of [herons, owls]) {
        expect((await client.files.waitUntilReady(file.id, { pollInterval: 10, timeout: 5000 })).status).toBe(
          'success',
        );
      }
      const store = await client.vectorStores.create({ name: 'birds_kb' });
      await client.vectorStores.files.create(store.id, {
        files: [{ file_id: herons.id }, { file_id: owls.id }],
      });
      const completion = await client.chat.completions.create({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'How do barn owls find mice at night?' }],
        tools: [{ type: 'retrieval', function: { name: 'birds', options: { vector_store_id: store.id } } }],
      });
      const content = completion.choices[0]?.message.content ?? '';
      expect(content).toMatch(/^According to owls\.txt/);
      expect(content).not.toContain('herons.txt: Grey');
      const other = await client.chat.completions.create({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'What do herons spear?' }],
        tools: [{ type: 'retrieval', function: { name: 'birds', options: { vector_store_id: store.id } } }],
      });
      expect(other.choices[0]?.message.content).toMatch(/^According to herons\.txt/);
    });
  });

  describe('when streaming', () => {
    it('should accumulate the observed-shape stream into the same completion', async () => {
      const params = {
        model: 'svc-3.7-flash',
        messages: [{ role: 'user' as const, content: 'Stream me a reply' }],
      };
      const stream = await client.chat.completions.create({ ...params, stream: true });
      const final = await stream.finalCompletion();
      const plain = await client.chat.completions.create(params);
      expect(final.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
      expect(final.choices[0]?.message.reasoning).toBe(plain.choices[0]?.message.reasoning);
      // The repeated prompt is served from the prompt cache the second time: all else is equal.
      expect(plain.usage?.cached_tokens).toBe(plain.usage?.prompt_tokens);
      expect(final.usage).toEqual({ ...plain.usage, cached_tokens: undefined });
    });
  });

  describe('when the service answers an error', () => {
    it('should surface the status, type and trace id', async () => {
      emu.script([{ error: { status: 429 } }]);
      await expect(
        client.chat.completions.create({
          model: 'svc-3.7-flash',
          messages: [{ role: 'user', content: 'x' }],
        }),
      ).rejects.toMatchObject({
        status: 429,
        type: 'rate_limit_exceeded',
        requestId: expect.stringMatching(/^trace-/),
      });
    });

    it('should retry a 503 from the fault header and then succeed', async () => {
      const retrying = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 2 });
      try {
        const completion = await retrying.chat.completions.create(
          { model: 'svc-3.7-flash', messages: [{ role: 'user', content: 'x' }] },
          { headers: { 'x-emulator-fault': 'status=503;retry-after=0;times=1' } },
        );
        expect(completion.object).toBe('chat.completion');
      } finally {
        await retrying.close();
      }
    });
  });

  describe('when using the other operations', () => {
    it('should count tokens the same way on both formats', async () => {
      const messages = [{ role: 'user' as const, content: 'Count these words please' }];
      const chat = await client.tokens.count({ model: 'svc-3.5-flash', messages });
      const anthropic = await client.messages.countTokens({ model: 'svc-3.5-flash', messages });
      expect(chat.data.total_tokens).toBe(anthropic.input_tokens);
      const plan = await client.plan.messages.countTokens({ model: 'svc-router-v1', messages });
      expect(plan.input_tokens).toBe(anthropic.input_tokens);
    });

    it('should clone and list voices, generate images and list models', async () => {
      const file = await client.files.upload({
        file: wavOfSeconds(6),
        purpose: 'storage',
        filename: 'me.wav',
      });
      const voice = await client.audio.voices.create({ model: 'svc-tts-2', file_id: file.id });
      expect(voice.id).toMatch(/^voice-/);
      const page = await client.audio.voices.list();
      expect(page.data.map((v) => v.id)).toContain(voice.id);
      const image = await client.images.generate({
        model: 'svc-1x-medium',
        prompt: 'a heron',
        size: '256x256',
        response_format: 'b64_json',
        seed: 7,
      });
      expect(image.data[0]?.seed).toBe(7);
      const models = await client.models.list();
      expect(models.data.some((m) => m.id === 'svc-1x-medium')).toBe(true);
    });
  });
});
