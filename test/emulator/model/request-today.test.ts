import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatCompletion } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { callEmulator } from '../../helpers/call-emulator.js';

const createEvent = {
  type: 'function',
  function: {
    name: 'create_event',
    description: 'Create a calendar event',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        date: { type: 'string', format: 'date' },
        start: { type: 'string', format: 'time' },
      },
      required: ['title', 'date', 'start'],
      additionalProperties: false,
    },
  },
};

describe('emulator dates', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  async function argumentsFor(messages: unknown[]): Promise<Record<string, unknown>> {
    const res = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', {
      model: 'svc-3.5-flash',
      messages,
      tools: [createEvent],
    });
    const call = res.json<ChatCompletion>().choices[0]?.message.tool_calls?.[0];
    return JSON.parse(call?.function.arguments ?? '{}') as Record<string, unknown>;
  }

  describe('when the same request comes on different days', () => {
    it('should answer the same arguments: dates come from the request, not the clock', async () => {
      const messages = [{ role: 'user', content: 'Create event "Dentist" tomorrow at 3pm' }];
      vi.useFakeTimers({ toFake: ['Date'], now: new Date('2031-06-15T23:59:58Z') });
      const first = await argumentsFor(messages);
      vi.setSystemTime(new Date('2031-06-16T00:00:01Z'));
      const second = await argumentsFor(messages);
      expect(second).toEqual(first);
      expect(first).toEqual({ title: 'Dentist', date: '2026-01-02', start: '15:00:00Z' });
    });
  });

  describe('when the conversation states today', () => {
    it('should read "tomorrow" from that date', async () => {
      const args = await argumentsFor([
        { role: 'system', content: 'Today is 2026-11-25.' },
        { role: 'user', content: 'Create event "Dentist" tomorrow at 3pm' },
      ]);
      expect(args.date).toBe('2026-11-26');
    });
  });
});
