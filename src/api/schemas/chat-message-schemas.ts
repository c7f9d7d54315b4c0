import { z } from 'zod';
import { contentPartSchema } from './chat-content-part-schemas.js';
import { integerBetween, ruleError } from './field-rules.js';

/** A system message. */
export const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });

/** A user message: text or a non-empty list of typed parts. */
export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(contentPartSchema).min(1, { error: 'must not be an empty array' })], {
    error: ruleError('must be a string or an array of parts'),
  }),
});

/**
 * A call the model asked for, sent back in an assistant message. Hosted calls (`web_search`) may be echoed
 * back as the service reported them, so only `function` calls need a name and arguments.
 */
export const assistantToolCallSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }),
    index: integerBetween(0).optional(),
  })
  .superRefine((call, ctx) => {
    if (call.type !== 'function') return;
    if (call.function.name === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required for a function call', path: ['function', 'name'] });
    }
    if (call.function.arguments === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'required for a function call',
        path: ['function', 'arguments'],
      });
    }
  });

/**
 * An assistant message. The spec types its `content` as "string or null" and sets no rule tying a null
 * content to `tool_calls`, so a history turn with `content: null` and no calls is accepted as written.
 */
export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.string().nullable().optional(),
  tool_calls: z.array(assistantToolCallSchema).optional(),
  reasoning: z.string().optional(),
  reasoning_content: z.string().optional(),
});

/** A tool message answering the call with the same `tool_call_id`. */
export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  content: z.string(),
  // Legacy models send `id: ""`, so an empty id is accepted: only a missing one is a mistake.
  tool_call_id: z.string({
    error: (issue) => (issue.input === undefined ? 'required for role "tool"' : 'must be a string'),
  }),
});

/** Any message of a chat-completion request, chosen by `role`. */
export const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

/**
 * Tool messages answer calls "as returned by the assistant in the previous turn": each `tool_call_id`
 * must name a function call of the nearest assistant message before it. Catches orphaned tool results
 * left behind when a conversation is trimmed, which the service refuses.
 */
function checkToolCallIds(
  messages: z.output<typeof chatMessageSchema>[],
  ctx: z.core.$RefinementCtx<unknown>,
) {
  let callIds: Set<string> | undefined;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      callIds = new Set(message.tool_calls?.map((call) => call.id));
    } else if (message.role === 'tool' && !callIds?.has(message.tool_call_id)) {
      ctx.addIssue({
        code: 'custom',
        message:
          callIds === undefined
            ? 'must follow an assistant message whose tool_calls include this id'
            : callIds.size === 0
              ? 'the preceding assistant message has no tool_calls to answer'
              : `${JSON.stringify(message.tool_call_id)} is not a tool call id of the preceding assistant message`,
        path: [index, 'tool_call_id'],
      });
    }
  }
}

/** The `messages` of a chat completion: at least one, tool results matching the calls they answer. */
export const chatMessagesSchema = z
  .array(chatMessageSchema)
  .min(1, { error: 'must contain at least one message' })
  .superRefine(checkToolCallIds);

/** A chat message as the schema accepts it. */
export type ChatMessageInput = z.input<typeof chatMessageSchema>;
