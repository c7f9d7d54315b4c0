import { z } from 'zod';
import { chatMessageSchema, chatMessagesSchema } from './chat-message-schemas.js';
import { checkChatModelRules, checkDefaultChannelRules, checkPlanChannelRules } from './chat-model-rules.js';
import { toolDefinitionSchema } from './chat-tool-schemas.js';
import { integerBetween, nonEmptyString, numberBetween, stringOrStrings } from './field-rules.js';
import { isCommonChatMessage } from './is-common-chat-message.js';
import { validateWithSchema } from './validate-with-schema.js';
import { isDeepFrozen, validatedToolArrays } from './validated-tool-arrays.js';

/** Which chat channel a request goes to: `/v1` or the plan channel `/svc_plan/v1`. */
export type ChatChannel = 'default' | 'plan';

/** `response_format`: text, JSON mode, or a named JSON Schema. */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object(
      {
        name: nonEmptyString(),
        strict: z.boolean().optional(),
        schema: z.looseObject(
          {},
          { error: (issue) => (issue.input === undefined ? 'required' : 'must be a JSON Schema object') },
        ),
        description: z.string().optional(),
      },
      {
        error: (issue) =>
          issue.input === undefined ? 'required for type "json_schema"' : 'must be an object',
      },
    ),
  }),
]);

const chatCompletionParamsObject = z.object({
  model: nonEmptyString(),
  messages: chatMessagesSchema,
  tools: z.array(toolDefinitionSchema).optional(),
  audio: z.object({ voice: nonEmptyString(), format: z.enum(['pcm', 'wav']) }).optional(),
  modalities: z.array(z.enum(['text', 'audio'])).optional(),
  max_tokens: integerBetween(1).optional(),
  temperature: numberBetween(0, 2).optional(),
  top_p: numberBetween(0, 1).optional(),
  n: integerBetween(1).optional(),
  stream: z.boolean().optional(),
  stop: stringOrStrings().optional(),
  frequency_penalty: numberBetween(0, 1).optional(),
  response_format: responseFormatSchema.optional(),
  reasoning_format: z.enum(['general', 'alt-style']).optional(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).optional(),
});

// Cross-field and model rules run even when a field failed, so one error lists every broken rule.
const always = { when: () => true };

/** Body of `POST /v1/chat/completions`, with the model-specific rules of the spec. */
export const chatCompletionParamsSchema = chatCompletionParamsObject.superRefine((params, ctx) => {
  if (typeof params !== 'object' || params === null) return;
  checkChatModelRules(params, ctx);
  checkDefaultChannelRules(params, ctx);
}, always);

/** Body of `POST /svc_plan/v1/chat/completions`: also only `svc-router-v1`, without image input or web_search. */
export const planChatCompletionParamsSchema = chatCompletionParamsObject.superRefine((params, ctx) => {
  if (typeof params !== 'object' || params === null) return;
  checkChatModelRules(params, ctx);
  checkPlanChannelRules(params, ctx);
}, always);

/** Chat-completion params as the schema accepts them. */
export type ChatCompletionParamsInput = z.input<typeof chatCompletionParamsSchema>;

/** Options of {@link validateChatCompletionParams}. */
export interface ValidateChatCompletionOptions {
  channel?: ChatChannel;
  /**
   * Internal: `messages[0..n)` are the unchanged messages of an earlier request that passed validation
   * (the agent re-sends its conversation every turn), so only the messages after them are parsed.
   */
  validatedMessages?: number | undefined;
  /**
   * Internal: the params of that earlier request. Scalar fields with the very same values (`===`) are
   * not parsed again.
   */
  validatedParams?: object | undefined;
}

// The fast path parses the scalar fields with the same field rules, and messages and tools separately.
const scalarParamsSchema = chatCompletionParamsObject.omit({ messages: true, tools: true });
const messageListSchema = z.array(chatMessageSchema);
const toolListSchema = z.array(toolDefinitionSchema);

type RawMessage = { role?: unknown; tool_calls?: { id?: unknown }[]; tool_call_id?: unknown };

/**
 * Whether `params` passes every rule, checking only what an earlier request did not: the scalar fields,
 * `messages[from..]` (the tool_call_id rule sees the nearest assistant message, also in the prefix) and
 * `tools` unless it is a deep-frozen array that passed before. It answers only "passes": on any issue the
 * caller runs the whole schema, so error messages, paths and their order are exactly those of a full check.
 */
function passesIncrementally(
  params: unknown,
  channel: ChatChannel,
  from: number,
  previous: object | undefined,
): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const raw = params as Record<string, unknown>;
  const { messages, tools } = raw;
  if (!Array.isArray(messages) || messages.length === 0 || from < 0 || from > messages.length) return false;
  const scalarsKnownGood =
    isModelAndStreamOnly(raw) ||
    (previous !== undefined && sameScalars(raw, previous as Record<string, unknown>));
  if (!scalarsKnownGood && !scalarParamsSchema.safeParse(raw).success) return false;
  if (!tailIsCommon(messages, from)) {
    const tail = from === 0 ? messages : messages.slice(from);
    if (!messageListSchema.safeParse(tail).success) return false;
  }
  if (!toolCallIdsMatch(messages as RawMessage[], from)) return false;
  if (
    tools !== undefined &&
    !(typeof tools === 'object' && tools !== null && validatedToolArrays.has(tools))
  ) {
    if (!toolListSchema.safeParse(tools).success) return false;
    if (isDeepFrozen(tools)) validatedToolArrays.add(tools as object);
  }
  let broken = false;
  const ctx = {
    addIssue: () => {
      broken = true;
    },
  } as unknown as z.core.$RefinementCtx<unknown>;
  checkChatModelRules(raw, ctx);
  if (channel === 'plan') checkPlanChannelRules(raw, ctx);
  else checkDefaultChannelRules(raw, ctx);
  return !broken;
}

/** True when every message from `from` on has a common shape the schema accepts (checked without zod). */
function tailIsCommon(messages: unknown[], from: number): boolean {
  for (let index = from; index < messages.length; index++) {
    if (!isCommonChatMessage(messages[index])) return false;
  }
  return true;
}

/**
 * The agent's usual request: no scalar field but a non-empty `model` and a boolean `stream`. Checked
 * without zod (which copies what it parses); any other field goes to the schema.
 */
function isModelAndStreamOnly(params: Record<string, unknown>): boolean {
  if (typeof params.model !== 'string' || params.model === '') return false;
  for (const key in params) {
    if (key === 'model' || key === 'messages' || key === 'tools') continue;
    if (key !== 'stream' || (params.stream !== undefined && typeof params.stream !== 'boolean')) return false;
  }
  return true;
}

/** True when `params` has exactly the scalar fields of `previous`, with the same values. */
function sameScalars(params: Record<string, unknown>, previous: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in params) {
    if (key === 'messages' || key === 'tools') continue;
    if (params[key] !== previous[key]) return false;
    count++;
  }
  for (const key in previous) if (key !== 'messages' && key !== 'tools') count--;
  return count === 0;
}

/** The tool_call_id rule of `chatMessagesSchema` for `messages[from..]`, on messages that parsed. */
function toolCallIdsMatch(messages: RawMessage[], from: number): boolean {
  let callIds: Set<unknown> | undefined;
  for (let index = from - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant') {
      callIds = new Set(message.tool_calls?.map((call) => call.id));
      break;
    }
  }
  for (let index = from; index < messages.length; index++) {
    const message = messages[index];
    if (message?.role === 'assistant') callIds = new Set(message.tool_calls?.map((call) => call.id));
    else if (message?.role === 'tool' && !callIds?.has(message.tool_call_id)) return false;
  }
  return true;
}

/**
 * Throws `RequestValidationError` listing every rule `params` breaks, before any network call.
 * @example validateChatCompletionParams(params, { channel: 'plan' })
 */
export function validateChatCompletionParams(
  params: unknown,
  { channel = 'default', validatedMessages = 0, validatedParams }: ValidateChatCompletionOptions = {},
): void {
  if (passesIncrementally(params, channel, validatedMessages, validatedParams)) return;
  if (channel === 'plan')
    validateWithSchema(planChatCompletionParamsSchema, 'plan.chat.completions.create', params);
  else validateWithSchema(chatCompletionParamsSchema, 'chat.completions.create', params);
}
