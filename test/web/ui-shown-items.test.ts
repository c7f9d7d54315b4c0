import { describe, expect, it } from 'vitest';
import type { AgentEventJson } from '../../src/agent/agent-event-json.js';
import { STOPPED_CALL_TEXT, shownItems } from '../../src/web/ui-shown-items.js';

const question = { role: 'user' as const, content: 'Weather in Paris and Rome?' };
const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, cachedTokens: 0 };

describe('shownItems', () => {
  describe('when the page saw a finished tool call and a call still running', () => {
    it('should keep both calls, the seen result and a stopped answer for the other, then the text shown', () => {
      const events: AgentEventJson[] = [
        { type: 'start-step', step: 0 },
        { type: 'reasoning-delta', text: 'Two cities.' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'get_weather', input: { city: 'Rome' } },
        { type: 'tool-result', toolCallId: 'a', toolName: 'get_weather', input: {}, output: { rain: true } },
        { type: 'finish-step', step: 0, finishReason: 'tool_calls', usage },
      ];
      expect(shownItems([question], events)).toEqual([
        question,
        {
          role: 'assistant',
          content: null,
          reasoning: 'Two cities.',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '{"rain":true}' },
        { role: 'tool', tool_call_id: 'b', content: STOPPED_CALL_TEXT },
      ]);
    });
  });

  describe('when the page saw only part of the text of a second turn', () => {
    it('should keep the text as far as it went, as a turn of its own', () => {
      const events: AgentEventJson[] = [
        { type: 'start-step', step: 0 },
        { type: 'tool-call', toolCallId: 'a', toolName: 'get_weather', input: { city: 'Paris' } },
        {
          type: 'tool-error',
          toolCallId: 'a',
          toolName: 'get_weather',
          input: {},
          error: { name: 'Error', message: 'down' },
        },
        { type: 'start-step', step: 1 },
        { type: 'text-delta', text: 'The weather ' },
        { type: 'text-delta', text: 'service is' },
      ];
      const items = shownItems([question], events);
      expect(items.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'a', content: 'down' },
        { role: 'assistant', content: 'The weather service is' },
      ]);
    });
  });

  describe('when the page saw nothing of the answer', () => {
    it('should keep the question only', () => {
      expect(shownItems([question], [{ type: 'start-step', step: 0 }])).toEqual([question]);
    });
  });
});
