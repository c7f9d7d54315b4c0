import { describe, expect, it } from 'vitest';
import { toAssistantMessage } from '../../../src/agent/loop/to-assistant-message.js';

describe('toAssistantMessage', () => {
  describe('when the answer mixes function and hosted calls', () => {
    it('should keep exact arguments, fill empty ids and leave hosted calls out of the message', () => {
      let n = 0;
      const turn = toAssistantMessage(
        {
          role: 'assistant',
          content: '',
          reasoning: 'r',
          tool_calls: [
            { id: 'ws', type: 'web_search', function: { name: 'svc_websearch', arguments: '{}' } },
            { id: '', type: 'function', function: { name: 'f', arguments: '{ "a" : 1 }' }, index: 0 },
          ],
        },
        () => `gen_${++n}`,
      );
      expect(turn.message).toEqual({
        role: 'assistant',
        content: '',
        reasoning: 'r',
        tool_calls: [{ id: 'gen_1', type: 'function', function: { name: 'f', arguments: '{ "a" : 1 }' } }],
      });
      expect(turn.hostedCalls.map((call) => call.id)).toEqual(['ws']);
      expect(turn.reasoning).toBe('r');
    });
  });

  describe('when an audio model answers with a transcript only', () => {
    it('should use the transcript as text and content', () => {
      const turn = toAssistantMessage(
        { role: 'assistant', content: null, audio: { data: 'AAAA', transcript: 'Hello there' } },
        () => 'x',
      );
      expect(turn.text).toBe('Hello there');
      expect(turn.message).toEqual({ role: 'assistant', content: 'Hello there' });
    });
  });
});
