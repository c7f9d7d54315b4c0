import { describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams, FunctionToolDefinition } from '../../src/api/types/chat.js';
import { runDefaultModel } from '../../src/emulator/model/default-model.js';

function tool(
  name: string,
  description: string,
  properties: Record<string, Record<string, unknown>>,
  required: string[] = [],
): FunctionToolDefinition {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required } },
  };
}

const weather = tool('get_weather', 'Current weather of a city', { city: { type: 'string' } }, ['city']);
const time = tool('get_time', 'Current local time of a city', { city: { type: 'string' } }, ['city']);
const convert = tool(
  'convertCurrency',
  'Converts money between currencies',
  {
    amount: { type: 'number' },
    from: { type: 'string', enum: ['USD', 'EUR', 'JPY'] },
    to: { type: 'string', enum: ['USD', 'EUR', 'JPY'] },
    note: { type: 'string' },
    rounding: { type: 'string', enum: ['up', 'down'] },
  },
  ['amount', 'from', 'to'],
);

function ask(content: string, tools: FunctionToolDefinition[]) {
  const body: ChatCompletionCreateParams = {
    model: 'svc-3.5-flash',
    messages: [{ role: 'user', content }],
    tools,
  };
  return runDefaultModel(body, { searchStore: () => [] });
}

describe('runDefaultModel', () => {
  describe('when tool names share a word with the message', () => {
    it('should call only those tools, not the ones sharing a description word', () => {
      const answer = ask('What is the current weather in Lisbon?', [weather, time]);
      expect(answer.toolCalls?.map((c) => c.name)).toEqual(['get_weather']);
    });

    it('should call several tools in parallel with distinct ids', () => {
      const answer = ask('weather and time for "San José"', [weather, time]);
      expect(answer.toolCalls?.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
        ['get_weather', { city: 'San José' }],
        ['get_time', { city: 'San José' }],
      ]);
      expect(new Set(answer.toolCalls?.map((c) => c.id)).size).toBe(2);
    });
  });

  describe('when building arguments', () => {
    it('should fill numbers, enum members in the order mentioned, and leave unmentioned optional fields out', () => {
      const answer = ask('Convert 250 EUR to USD, rounding down', [convert, weather]);
      expect(answer.toolCalls?.map((c) => c.name)).toEqual(['convertCurrency']);
      expect(JSON.parse(answer.toolCalls?.[0]?.arguments ?? '{}')).toEqual({
        amount: 250,
        from: 'EUR',
        to: 'USD',
        rounding: 'down',
      });
    });
  });

  describe('when only a description matches', () => {
    it('should call the tool whose description shares a word', () => {
      const answer = ask('How much money is that?', [convert, weather]);
      expect(answer.toolCalls?.map((c) => c.name)).toEqual(['convertCurrency']);
    });
  });

  describe('when the message is arithmetic that names no tool', () => {
    it('should call the calculator with the question as its expression', () => {
      const calculator = tool(
        'calculate',
        'A calculator for arithmetic expressions',
        {
          expression: { type: 'string' },
        },
        ['expression'],
      );
      const answer = ask('What is 17*23?', [weather, calculator]);
      expect(answer.toolCalls?.map((c) => c.name)).toEqual(['calculate']);
      expect(JSON.parse(answer.toolCalls?.[0]?.arguments ?? '{}').expression).toContain('17*23');
    });

    it('should not take a date or a phone number for a sum', () => {
      const calculator = tool('calculate', 'A calculator for arithmetic expressions', {
        expression: { type: 'string' },
      });
      expect(ask('Tell me a story about 2024', [calculator]).toolCalls).toBeUndefined();
    });
  });

  describe('when nothing matches', () => {
    it('should reply deterministically from the prompt', () => {
      const first = ask('Tell me a story', [weather]);
      expect(first.toolCalls).toBeUndefined();
      expect(first.content).toBe(ask('Tell me a story', [weather]).content);
      // An honest answer of what the demo can do, never the prompt said back.
      expect(first.content).toContain('demo model');
      expect(first.content).not.toContain('Tell me a story');
    });
  });
});
