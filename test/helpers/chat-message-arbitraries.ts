import fc from 'fast-check';

/** Values of every kind a field might hold, valid or not. */
export const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -2, max: 3 }),
  fc.constantFrom(1.5, -1, Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
/** Mostly `valid`, sometimes anything: single broken fields in otherwise good messages are common. */
export const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: anyValue, weight: 1 });

/** An assistant tool-call entry, mostly well formed. */
export const toolCall = fc.record(
  {
    id: mostly(fc.string({ maxLength: 4 })),
    type: mostly(fc.constantFrom('function', 'web_search')),
    function: mostly(
      fc.record(
        { name: mostly(fc.string({ maxLength: 4 })), arguments: mostly(fc.string({ maxLength: 4 })) },
        { requiredKeys: [] },
      ),
    ),
    index: fc.oneof(fc.constant(undefined), fc.nat(3), anyValue),
  },
  { requiredKeys: [] },
);

/** A chat message, mostly well formed, of any role. */
export const message = fc.record(
  {
    role: mostly(fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer')),
    content: fc.oneof(mostly(fc.string({ maxLength: 4 })), fc.constant([{ type: 'text', text: 'hi' }])),
    tool_calls: mostly(fc.array(toolCall, { maxLength: 3 })),
    tool_call_id: mostly(fc.string({ maxLength: 4 })),
    reasoning: mostly(fc.string({ maxLength: 4 })),
    reasoning_content: mostly(fc.string({ maxLength: 4 })),
  },
  { requiredKeys: ['role'] },
);
