import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator } from '../helpers/call-emulator.js';

describe('emulator with the official @anthropic-ai/sdk', () => {
  let emu: Emulator;

  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(() => emu.close());

  describe('when counting tokens with base URL <root>', () => {
    it('should answer input_tokens equal to /v1/token/count on the same text', async () => {
      const client = new Anthropic({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      const counted = await client.messages.countTokens({
        model: 'svc-3.5-flash',
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
      });
      const chat = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/token/count', {
        model: 'svc-3.5-flash',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'How many tokens is this sentence?' },
        ],
      });
      expect(counted.input_tokens).toBeGreaterThan(5);
      expect(chat.json()).toEqual({ data: { total_tokens: counted.input_tokens } });
    });
  });

  describe('when counting tokens with base URL <root>/svc_plan', () => {
    it('should use the plan channel and its model rule', async () => {
      const client = new Anthropic({ apiKey: emu.apiKey, baseURL: `${emu.baseURL}/svc_plan`, maxRetries: 0 });
      const counted = await client.messages.countTokens({
        model: 'svc-router-v1',
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(counted.input_tokens).toBeGreaterThan(0);
      expect(emu.requests().at(-1)?.path).toBe('/svc_plan/v1/messages/count_tokens');
      await expect(
        client.messages.countTokens({
          model: 'svc-3.5-flash',
          messages: [{ role: 'user', content: 'hello' }],
        }),
      ).rejects.toMatchObject({ status: 400 });
    });
  });

  describe('when creating a message', () => {
    it('should answer a Messages-format reply, plain and streamed', async () => {
      const client = new Anthropic({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      const message = await client.messages.create({
        model: 'svc-3.5-flash',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Describe a heron' }],
      });
      expect(message.content[0]).toMatchObject({ type: 'text' });
      expect(JSON.stringify(message.content)).toContain('demo model');
      const stream = client.messages.stream({
        model: 'svc-3.5-flash',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Describe a heron' }],
      });
      const final = await stream.finalMessage();
      expect(final.content).toEqual(message.content);
    });

    it('should call a matching tool and answer from its tool_result', async () => {
      const client = new Anthropic({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather of a city',
          input_schema: {
            type: 'object' as const,
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ];
      const first = await client.messages.create({
        model: 'svc-3.5-flash',
        max_tokens: 100,
        tools,
        messages: [{ role: 'user', content: 'What is the weather in Lima?' }],
      });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((block) => block.type === 'tool_use');
      if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
      expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Lima' } });
      const second = await client.messages.create({
        model: 'svc-3.5-flash',
        max_tokens: 100,
        tools,
        messages: [
          { role: 'user', content: 'What is the weather in Lima?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'foggy, 18 C' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect(JSON.stringify(second.content)).toContain('The weather in Lima: foggy, 18 C.');
    });

    it('should refuse a wrong x-api-key', async () => {
      const client = new Anthropic({ apiKey: 'wrong', baseURL: emu.baseURL, maxRetries: 0 });
      await expect(
        client.messages.countTokens({ model: 'svc-3.5-flash', messages: [{ role: 'user', content: 'x' }] }),
      ).rejects.toMatchObject({ status: 401 });
    });
  });
});
