import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';

describe('emulator with the official openai SDK', () => {
  let emu: Emulator;
  let client: OpenAI;

  beforeAll(async () => {
    emu = await startEmulator({ parseDelayMs: 20 });
    client = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.baseURL}/v1`, maxRetries: 0 });
  });
  afterAll(() => emu.close());

  describe('when chatting without tools', () => {
    it('should answer a plain completion built from the prompt', async () => {
      const completion = await client.chat.completions.create({
        model: 'svc-1o-turbo-vision',
        messages: [{ role: 'user', content: 'Tell me about owls' }],
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message.content).toContain('demo model');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.total_tokens).toBe(
        (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
      );
    });

    it('should stream chunks the SDK iterates to the same text', async () => {
      const stream = await client.chat.completions.create({
        model: 'svc-1o-turbo-vision',
        messages: [{ role: 'user', content: 'Tell me about owls' }],
        stream: true,
      });
      let text = '';
      const finishes: unknown[] = [];
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finishes.push(chunk.choices[0]?.finish_reason);
      }
      expect(text).toContain('demo model');
      expect(finishes.at(-1)).toBe('stop');
      expect(finishes.slice(0, -1).every((f) => f === '')).toBe(true);
    });
  });

  describe('when tools match the message', () => {
    it('should call the tool with arguments taken from the message', async () => {
      const completion = await client.chat.completions.create({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'What is the weather in Paris, in celsius?' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather of a city',
              parameters: {
                type: 'object',
                properties: {
                  city: { type: 'string' },
                  unit: { type: 'string', enum: ['fahrenheit', 'celsius'] },
                },
                required: ['city'],
              },
            },
          },
        ],
      });
      const call = completion.choices[0]?.message.tool_calls?.[0];
      expect(call?.type).toBe('function');
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    });

    it('should stream tool-call deltas the SDK helper assembles', async () => {
      const runner = client.chat.completions.stream({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'Add 2 and 40 please' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'add_numbers',
              description: 'Adds two numbers',
              parameters: {
                type: 'object',
                properties: { a: { type: 'number' }, b: { type: 'number' } },
                required: ['a', 'b'],
              },
            },
          },
        ],
      });
      const final = await runner.finalChatCompletion();
      const call = final.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('add_numbers');
      expect(JSON.parse(call.function.arguments)).toEqual({ a: 2, b: 40 });
    });
  });

  describe('when listing models', () => {
    it('should list and retrieve the service models', async () => {
      const ids: string[] = [];
      for await (const model of client.models.list()) ids.push(model.id);
      expect(ids).toContain('svc-3.5-flash');
      expect(ids).toContain('svc-router-v1');
      const model = await client.models.retrieve('svc-3.7-flash');
      expect(model).toMatchObject({ id: 'svc-3.7-flash', object: 'model' });
      await expect(client.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('when managing files', () => {
    it('should upload, list by purpose, retrieve, read and delete a file', async () => {
      const uploaded = await client.files.create({
        file: await toFile(Buffer.from('Owls hunt at night.'), 'owls.txt'),
        purpose: 'file-extract' as never,
      });
      expect(uploaded).toMatchObject({
        object: 'file',
        filename: 'owls.txt',
        bytes: 19,
        status: 'processed',
      });
      const listed = await client.files.list({ purpose: 'file-extract' });
      expect(listed.data.map((f) => f.id)).toContain(uploaded.id);
      // The emulator processes an upload after answering it: wait past that for the status to read `success`.
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect((await client.files.retrieve(uploaded.id)).status).toBe('success');
      const content = await client.files.content(uploaded.id);
      expect(await content.text()).toBe('Owls hunt at night.');
      expect(await client.files.delete(uploaded.id)).toMatchObject({ id: uploaded.id, deleted: true });
      await expect(client.files.retrieve(uploaded.id)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('when the key is wrong', () => {
    it('should reject with 401 invalid_api_key', async () => {
      const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${emu.baseURL}/v1`, maxRetries: 0 });
      await expect(bad.models.list()).rejects.toMatchObject({
        status: 401,
        error: { message: 'Incorrect API key provided', type: 'invalid_api_key' },
      });
    });
  });
});
