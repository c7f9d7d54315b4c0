import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chatCompletionParamsSchema,
  validateChatCompletionParams,
} from '../../../src/api/schemas/chat-completion-params-validator.js';
import { anyValue, message } from '../../helpers/chat-message-arbitraries.js';
import { issueLinesOf } from '../../helpers/validation-error-of.js';

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

/** `messages` sent once and accepted: the validator knows these objects when they are sent again. */
const accepted = <T extends unknown[]>(messages: T): T => {
  validateChatCompletionParams(params(messages));
  return messages;
};

/** Deep copies the validator has never seen: a check of them parses everything (the full schema). */
const fresh = <T>(value: T): T => structuredClone(value);

const params = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'svc-3.5-flash',
  messages,
  tools: tools(),
  ...extra,
});

describe('validateChatCompletionParams with messages accepted before', () => {
  describe('when the new messages are valid', () => {
    it('should pass a tool message answering a call of an assistant message accepted before', () => {
      const messages = [...accepted(conversation()), { role: 'tool', tool_call_id: 'b', content: '3' }];
      expect(() => validateChatCompletionParams(params(messages))).not.toThrow();
    });
  });

  describe('when a new message breaks a rule', () => {
    it('should refuse a tool_call_id the preceding (accepted) assistant message did not ask for, with its full-array path', () => {
      const messages = [...accepted(conversation()), { role: 'tool', tool_call_id: 'x', content: '3' }];
      const full = issueLinesOf(() => validateChatCompletionParams(params(fresh(messages))));
      const incremental = issueLinesOf(() => validateChatCompletionParams(params(messages)));
      expect(incremental).toEqual(full);
      expect(incremental.join('\n')).toContain(
        'messages[7].tool_call_id: "x" is not a tool call id of the preceding assistant message',
      );
    });

    it('should refuse a malformed new message with its full-array index', () => {
      const messages = [
        ...accepted([...conversation(), { role: 'tool', tool_call_id: 'b', content: '3' }]),
        { role: 'user' },
      ];
      const lines = issueLinesOf(() => validateChatCompletionParams(params(messages)));
      expect(lines.join('\n')).toMatch(/messages\[8\]\.content: /);
      expect(lines).toEqual(issueLinesOf(() => validateChatCompletionParams(params(fresh(messages)))));
    });

    it('should still check the scalar fields and the model rules', () => {
      const messages = accepted(conversation());
      const bad = params(messages, { temperature: 3, model: 'svc-router-v1' });
      const lines = issueLinesOf(() => validateChatCompletionParams(bad));
      expect(lines).toEqual(issueLinesOf(() => validateChatCompletionParams(fresh(bad))));
      expect(lines.join('\n')).toMatch(/temperature: /);
      expect(lines.join('\n')).toMatch(/model: /);
    });
  });

  describe('when an accepted message is answered again by the cross-message rule', () => {
    it('should check which call a tool message answers on every request', () => {
      // Both tool messages were accepted (each answered its call); reordered, the pairing breaks.
      const messages = accepted(conversation());
      const reordered = [...messages.slice(0, 3), messages[6]!, messages[4]!, messages[5]!, messages[3]!];
      const lines = issueLinesOf(() => validateChatCompletionParams(params(reordered)));
      expect(lines).toEqual(issueLinesOf(() => validateChatCompletionParams(params(fresh(reordered)))));
      expect(lines.join('\n')).toContain('messages[3].tool_call_id');
    });
  });
});

describe('validateChatCompletionParams with tool definitions accepted before', () => {
  describe('when a tools array passed', () => {
    it('should not parse its definitions again, yet refuse one edited in place after it passed', () => {
      const definitions: Record<string, unknown>[] = tools();
      validateChatCompletionParams(params(conversation(), { tools: definitions }));
      expect(() =>
        validateChatCompletionParams(params(conversation(), { tools: definitions })),
      ).not.toThrow();
      (definitions[0]!.function as Record<string, unknown>).name = 'bad name';
      expect(() => validateChatCompletionParams(params(conversation(), { tools: definitions }))).toThrow(
        /tools\[0\]\.function\.name: /,
      );
    });

    it('should not remember a definition that breaks a rule', () => {
      const bad = [{ type: 'function', function: { name: 'bad name' } }];
      const lines = issueLinesOf(() => validateChatCompletionParams(params(conversation(), { tools: bad })));
      expect(lines.join('\n')).toMatch(/tools\[0\]\.function\.name: /);
      expect(
        issueLinesOf(() => validateChatCompletionParams(params(conversation(), { tools: bad }))),
      ).toEqual(lines);
    });
  });

  describe('when a tools array gets a new definition after it passed', () => {
    it('should refuse the change on the next request', () => {
      const mutable: Record<string, unknown>[] = tools();
      validateChatCompletionParams(params(conversation(), { tools: mutable }));
      mutable.push({ type: 'function', function: { name: 'bad name' } });
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(params(conversation(), { tools: mutable })),
      );
      expect(lines.join('\n')).toMatch(/tools\[1\]\.function\.name: /);
    });
  });
});

describe('validateChatCompletionParams scalar fields', () => {
  const next = (messages: Record<string, unknown>[]) => [
    ...messages,
    { role: 'tool', tool_call_id: 'b', content: '3' },
  ];

  describe('when a scalar field differs from an accepted request', () => {
    it('should parse the scalars again and name the broken field', () => {
      const messages = conversation();
      validateChatCompletionParams(params(messages, { temperature: 0.5 }));
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(params(next(messages), { temperature: 5 })),
      );
      expect(lines.join('\n')).toContain('temperature');
    });

    it('should parse them when a field is new, even if every shared field is the same', () => {
      const messages = accepted(conversation());
      expect(() => validateChatCompletionParams(params(next(messages), { top_p: 7 }))).toThrow(/top_p/);
    });

    it('should parse them when a field of the accepted request is gone', () => {
      // `model` is missing now: the request must not pass as "the same scalars" minus one.
      const { model: _dropped, ...rest } = params(next(accepted(conversation())));
      expect(() => validateChatCompletionParams(rest)).toThrow(/model/);
    });
  });

  describe('when every message was accepted before', () => {
    it('should still refuse a message edited in place after it was sent', () => {
      const messages = accepted(conversation());
      (messages[1] as Record<string, unknown>).content = [];
      expect(() => validateChatCompletionParams(params(messages))).toThrow(/messages\[1\]\.content/);
      (messages[1] as Record<string, unknown>).content = 'Add things.';
      expect(() => validateChatCompletionParams(params(messages))).not.toThrow();
    });
  });
});

describe('validateChatCompletionParams fast paths', () => {
  describe('when given any params of the agent shape, validated from scratch or after a prefix was accepted', () => {
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
          const passes = (run: () => void) => {
            try {
              run();
              return true;
            } catch {
              return false;
            }
          };
          expect(passes(() => validateChatCompletionParams(fresh(params)))).toBe(expected);
          // An earlier request sent the leading messages (the same objects): whatever it accepted of them
          // is known, and the verdict on the whole request stays the same.
          const from = Math.min(cut, raw.messages.length);
          passes(() => validateChatCompletionParams({ ...params, messages: raw.messages.slice(0, from) }));
          expect(passes(() => validateChatCompletionParams(params))).toBe(expected);
          expect(passes(() => validateChatCompletionParams(params))).toBe(expected);
        }),
        { numRuns: 3000 },
      );
    });
  });

  describe('when a message that was sent before is edited in place', () => {
    it('should refuse exactly what the full schema refuses for the request as it is now', () => {
      const edit = fc.record({
        messages: fc.array(message, { minLength: 1, maxLength: 4 }),
        at: fc.nat(3),
        key: fc.constantFrom('role', 'content', 'tool_calls', 'tool_call_id', 'name', 'extra'),
        value: anyValue,
        deep: fc.boolean(),
      });
      fc.assert(
        fc.property(edit, ({ messages, at, key, value, deep }) => {
          const request = { model: 'svc-3.5-flash', messages };
          try {
            validateChatCompletionParams(request);
          } catch {
            // Only accepted objects are remembered; a refused request leaves nothing to compare.
          }
          const target = messages[at % messages.length] as Record<string, unknown>;
          const nested = target[key];
          if (deep && typeof nested === 'object' && nested !== null) {
            // An edit one level down (a content part, a tool call) must be seen as well.
            const inner = Array.isArray(nested) ? nested : Object.values(nested);
            if (typeof inner[0] === 'object' && inner[0] !== null)
              (inner[0] as Record<string, unknown>).type = value;
            else target[key] = value;
          } else target[key] = value;
          const expected = chatCompletionParamsSchema.safeParse(request).success;
          let passes = true;
          try {
            validateChatCompletionParams(request);
          } catch {
            passes = false;
          }
          expect(passes).toBe(expected);
        }),
        { numRuns: 3000 },
      );
    });
  });
});
