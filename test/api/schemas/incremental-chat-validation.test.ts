import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chatCompletionParamsSchema,
  validateChatCompletionParams,
} from '../../../src/api/schemas/chat-completion-params-validator.js';
import {
  deepFreeze,
  isDeepFrozen,
  validatedToolArrays,
} from '../../../src/api/schemas/validated-tool-arrays.js';
import { anyValue, message } from './chat-message-arbitraries.js';
import { issueLinesOf } from './validation-error-of.js';

const call = (id: string) => ({ id, type: 'function', function: { name: 'add', arguments: '{}' } });

/** A conversation of 7 valid messages; the assistant at index 5 asks for calls "a" and "b". */
const conversation = (): Record<string, unknown>[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Add things.' },
  { role: 'assistant', content: null, tool_calls: [call('x')] },
  { role: 'tool', tool_call_id: 'x', content: '1' },
  { role: 'assistant', content: 'Next.' },
  { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
  { role: 'tool', tool_call_id: 'a', content: '2' },
];

const tools = () => [
  {
    type: 'function',
    function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' } } } },
  },
];

const params = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'svc-3.5-flash',
  messages,
  tools: tools(),
  ...extra,
});

describe('validateChatCompletionParams with validatedMessages', () => {
  describe('when the new messages are valid', () => {
    it('should pass a tool message answering a call of an assistant message in the validated prefix', () => {
      const messages = [...conversation(), { role: 'tool', tool_call_id: 'b', content: '3' }];
      expect(() => validateChatCompletionParams(params(messages), { validatedMessages: 7 })).not.toThrow();
    });
  });

  describe('when a new message breaks a rule', () => {
    it('should refuse a tool_call_id the preceding (validated) assistant message did not ask for, with its full-array path', () => {
      const messages = [...conversation(), { role: 'tool', tool_call_id: 'x', content: '3' }];
      const full = issueLinesOf(() => validateChatCompletionParams(params(messages)));
      const incremental = issueLinesOf(() =>
        validateChatCompletionParams(params(messages), { validatedMessages: 7 }),
      );
      expect(incremental).toEqual(full);
      expect(incremental.join('\n')).toContain(
        'messages[7].tool_call_id: "x" is not a tool call id of the preceding assistant message',
      );
    });

    it('should refuse a malformed new message with its full-array index', () => {
      const messages = [
        ...conversation(),
        { role: 'tool', tool_call_id: 'b', content: '3' },
        { role: 'user' },
      ];
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(params(messages), { validatedMessages: 8 }),
      );
      expect(lines.join('\n')).toMatch(/messages\[8\]\.content: /);
      expect(lines).toEqual(issueLinesOf(() => validateChatCompletionParams(params(messages))));
    });

    it('should still check the scalar fields and the model rules', () => {
      const messages = conversation();
      const bad = params(messages, { temperature: 3, model: 'svc-router-v1' });
      const lines = issueLinesOf(() => validateChatCompletionParams(bad, { validatedMessages: 7 }));
      expect(lines).toEqual(issueLinesOf(() => validateChatCompletionParams(bad)));
      expect(lines.join('\n')).toMatch(/temperature: /);
      expect(lines.join('\n')).toMatch(/model: /);
    });
  });
});

describe('validatedToolArrays', () => {
  describe('when a tools array is deep-frozen', () => {
    it('should remember it after it passes, and never remember a mutable one', () => {
      const frozen = deepFreeze(tools());
      const mutable = tools();
      validateChatCompletionParams(params(conversation(), { tools: frozen }));
      validateChatCompletionParams(params(conversation(), { tools: mutable }));
      expect(isDeepFrozen(frozen)).toBe(true);
      expect(validatedToolArrays.has(frozen)).toBe(true);
      expect(validatedToolArrays.has(mutable)).toBe(false);
    });

    it('should not remember a frozen array that breaks a rule', () => {
      const bad = deepFreeze([{ type: 'function', function: { name: 'bad name' } }]);
      const lines = issueLinesOf(() => validateChatCompletionParams(params(conversation(), { tools: bad })));
      expect(lines.join('\n')).toMatch(/tools\[0\]\.function\.name: /);
      expect(validatedToolArrays.has(bad)).toBe(false);
    });
  });

  describe('when a mutable tools array changes after it passed', () => {
    it('should refuse the change on the next request', () => {
      const mutable: Record<string, unknown>[] = tools();
      validateChatCompletionParams(params(conversation(), { tools: mutable }));
      mutable.push({ type: 'function', function: { name: 'bad name' } });
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(params(conversation(), { tools: mutable }), { validatedMessages: 7 }),
      );
      expect(lines.join('\n')).toMatch(/tools\[1\]\.function\.name: /);
    });
  });
});

describe('validateChatCompletionParams with validatedParams', () => {
  const next = () => [...conversation(), { role: 'tool', tool_call_id: 'b', content: '3' }];

  describe('when a scalar field differs from the validated request', () => {
    it('should parse the scalars again and name the broken field', () => {
      const earlier = params(conversation(), { temperature: 0.5 });
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(params(next(), { temperature: 5 }), {
          validatedMessages: 7,
          validatedParams: earlier,
        }),
      );
      expect(lines.join('\n')).toContain('temperature');
    });

    it('should parse them when a field is new, even if every shared field is the same', () => {
      const earlier = params(conversation());
      expect(() =>
        validateChatCompletionParams(params(next(), { top_p: 7 }), {
          validatedMessages: 7,
          validatedParams: earlier,
        }),
      ).toThrow(/top_p/);
    });

    it('should parse them when a field of the validated request is gone', () => {
      // `model` is missing now: the request must not pass as "the same scalars" minus one.
      const { model: _dropped, ...rest } = params(next());
      expect(() =>
        validateChatCompletionParams(rest, {
          validatedMessages: 7,
          validatedParams: params(conversation()),
        }),
      ).toThrow(/model/);
    });
  });

  describe('when every scalar field is the very same value', () => {
    it('should not parse them again (the earlier request passed with them)', () => {
      // A value the schema refuses, on both requests: only a skipped parse lets this one through.
      const earlier = params(conversation(), { temperature: 5 });
      expect(() =>
        validateChatCompletionParams(params(next(), { temperature: 5 }), {
          validatedMessages: 7,
          validatedParams: earlier,
        }),
      ).not.toThrow();
    });
  });
});

describe('validateChatCompletionParams fast paths', () => {
  describe('when given any params of the agent shape, validated from scratch or after a prefix', () => {
    it('should refuse exactly what the full schema refuses', () => {
      const candidate = fc.record({
        model: fc.oneof(
          { arbitrary: fc.constantFrom('svc-3.5-flash', 'svc-3.7-flash'), weight: 4 },
          { arbitrary: fc.constant(''), weight: 1 },
          { arbitrary: anyValue, weight: 1 },
        ),
        stream: fc.oneof(fc.constant(undefined), fc.boolean(), anyValue),
        temperature: fc.oneof(fc.constant(undefined), fc.double({ min: -1, max: 3, noNaN: true })),
        messages: fc.array(message, { minLength: 1, maxLength: 4 }),
      });
      fc.assert(
        fc.property(candidate, fc.nat(4), (raw, cut) => {
          // Keys with undefined values are left out, as a caller building the object would.
          const params = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
          const expected = chatCompletionParamsSchema.safeParse(params).success;
          const from = Math.min(cut, raw.messages.length);
          const passes = (run: () => void) => {
            try {
              run();
              return true;
            } catch {
              return false;
            }
          };
          expect(passes(() => validateChatCompletionParams(params))).toBe(expected);
          // A validated prefix of unchanged messages: the same verdict when that prefix was valid.
          const prefix = { ...params, messages: raw.messages.slice(0, from) };
          if (from > 0 && chatCompletionParamsSchema.safeParse(prefix).success) {
            expect(
              passes(() =>
                validateChatCompletionParams(params, { validatedMessages: from, validatedParams: prefix }),
              ),
            ).toBe(expected);
          }
        }),
        { numRuns: 3000 },
      );
    });
  });
});
