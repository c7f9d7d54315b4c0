import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatMessageSchema } from '../../../src/api/schemas/chat-message-schemas.js';
import { isCommonChatMessage } from '../../../src/api/schemas/is-common-chat-message.js';
import { anyValue, message, toolCall } from '../../helpers/chat-message-arbitraries.js';

describe('isCommonChatMessage', () => {
  describe('when given any message-like value', () => {
    it('should accept only what chatMessageSchema accepts', () => {
      fc.assert(
        fc.property(message, (candidate) => {
          if (isCommonChatMessage(candidate))
            expect(chatMessageSchema.safeParse(candidate).success).toBe(true);
        }),
        { numRuns: 5000 },
      );
    });
  });

  describe('when given assistant messages with tool calls', () => {
    it('should accept only what chatMessageSchema accepts', () => {
      const assistant = fc.record({
        role: fc.constant('assistant'),
        content: fc.oneof(fc.constant(''), fc.constant(null), anyValue),
        tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 2 }),
      });
      fc.assert(
        fc.property(assistant, (candidate) => {
          if (isCommonChatMessage(candidate))
            expect(chatMessageSchema.safeParse(candidate).success).toBe(true);
        }),
        { numRuns: 5000 },
      );
    });
  });

  describe('when given the messages an agent sends every turn', () => {
    it('should accept them without the schema', () => {
      const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
      for (const accepted of [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [call], reasoning: 'think' },
        { role: 'assistant', content: null, tool_calls: [{ ...call, index: 0 }] },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":21}' },
      ]) {
        expect(isCommonChatMessage(accepted)).toBe(true);
      }
    });
  });

  describe('when a message needs the schema', () => {
    it('should leave content parts and broken rules to it', () => {
      expect(isCommonChatMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] })).toBe(false);
      expect(isCommonChatMessage({ role: 'assistant', content: null })).toBe(false);
      expect(isCommonChatMessage({ role: 'assistant', content: null, tool_calls: [] })).toBe(false);
      expect(
        isCommonChatMessage({ role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: {} }] }),
      ).toBe(false);
      expect(isCommonChatMessage({ role: 'tool', content: 'x' })).toBe(false);
    });
  });
});
