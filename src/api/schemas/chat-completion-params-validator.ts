import { z } from 'zod';
import type { Channel } from '../types/request-options.js';
import { chatMessageSchema, chatMessagesSchema } from './chat-message-schemas.js';
import { checkChatModelRules, checkDefaultChannelRules, checkPlanChannelRules } from './chat-model-rules.js';
import { toolDefinitionSchema } from './chat-tool-schemas.js';
import { integerBetween, nonEmptyString, numberBetween, stringOrStrings } from './field-rules.js';
import { isCommonChatMessage } from './is-common-chat-message.js';
import { validateWithSchema } from './validate-with-schema.js';

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
  // Beyond the spec, which gives no range: nucleus sampling keeps a share of the probability mass, so 0 to 1.
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
  channel?: Channel;
}

// The fast path parses the scalar fields with the same field rules, and each message and tool on its own.
const scalarParamsSchema = chatCompletionParamsObject.omit({ messages: true, tools: true });

/**
 * Messages and tool definitions that passed their schema, each with a copy of what it held then. A
 * conversation re-sends its earlier messages and the same tool definitions on every turn: each object is
 * parsed when it is first sent, and on later requests only compared with its copy (no allocation, and
 * unchanged strings compare by reference), while the rules between objects (which call a `tool` message
 * answers, model and channel rules) run on every request. An object edited in place after it was sent no
 * longer matches its copy and is parsed again, so the verdict is always the full schema's. One memory
 * per schema: an object accepted as a tool definition is still parsed when it is sent as a message.
 */
const acceptedMessages = new WeakMap<object, unknown>();
const acceptedTools = new WeakMap<object, unknown>();

type RawMessage = { role?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/**
 * Whether `params` passes every rule, parsing only the messages and tools not accepted before. It answers
 * only "passes": on any issue the caller runs the whole schema, so error messages, paths and their order
 * are exactly those of a full check.
 */
function passesIncrementally(params: unknown, channel: Channel): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const raw = params as Record<string, unknown>;
  const { messages, tools } = raw;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  if (!isModelAndStreamOnly(raw) && !scalarParamsSchema.safeParse(raw).success) return false;
  for (const message of messages) {
    if (!accept(message, acceptedMessages, isCommonChatMessage, chatMessageSchema)) return false;
  }
  if (!toolCallIdsMatch(messages as RawMessage[])) return false;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return false;
    for (const tool of tools) if (!accept(tool, acceptedTools, undefined, toolDefinitionSchema)) return false;
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

/**
 * True when `value` was accepted before and still holds what it held then, or passes now: first the hand
 * check `isCommon` (zod copies what it parses, and the agent sends new messages every turn), else the
 * schema. Accepted objects are recorded with a copy of their data.
 */
function accept(
  value: unknown,
  memory: WeakMap<object, unknown>,
  isCommon: ((value: unknown) => boolean) | undefined,
  schema: z.ZodType,
): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const copy = memory.get(value);
  if (copy !== undefined && sameData(value, copy, 0)) return true;
  if (!isCommon?.(value) && !schema.safeParse(value).success) return false;
  const snapshot = copyData(value, 0);
  if (snapshot !== notCopied) memory.set(value, snapshot);
  return true;
}

// Deeper data (or a cycle), and anything holding a class instance, whose fields a copy could not follow,
// is not remembered: it is parsed on every request, like before it was accepted.
const maxDepth = 32;
const notCopied = Symbol('not copied');

/** A copy of plain objects and arrays, primitives as they are; {@link notCopied} for anything else. */
function copyData(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (!isPlain(value) || depth > maxDepth) return notCopied;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = copyData(value[index], depth + 1);
      if (item === notCopied) return notCopied;
      copy[index] = item;
    }
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyData((value as Record<string, unknown>)[key], depth + 1);
    if (item === notCopied) return notCopied;
    copy[key] = item;
  }
  return copy;
}

/** True when `value` holds the same data as `copy` (made by {@link copyData}): same keys, same values. */
function sameData(value: unknown, copy: unknown, depth: number): boolean {
  if (value === copy) return true;
  if (typeof value !== 'object' || value === null || typeof copy !== 'object' || copy === null) return false;
  if (!isPlain(value) || depth > maxDepth) return false;
  // Fields equal by `===` (strings, numbers, an unchanged nested object) are settled here without a
  // call: most fields of a re-sent message are strings held by both sides, and this runs for every
  // re-sent message on every turn.
  if (Array.isArray(copy)) {
    if (!Array.isArray(value) || value.length !== copy.length) return false;
    for (let index = 0; index < copy.length; index++) {
      const item = value[index];
      const copied = copy[index];
      if (item !== copied && !sameData(item, copied, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(value)) return false;
  // Counted with for...in rather than Object.keys: no array of keys per object.
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!Object.hasOwn(copy, key)) return false;
    const field = (value as Record<string, unknown>)[key];
    const copied = (copy as Record<string, unknown>)[key];
    if (field !== copied && !sameData(field, copied, depth + 1)) return false;
    keys++;
  }
  for (const _key in copy) keys--;
  return keys === 0;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
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

/**
 * The tool_call_id rule of `chatMessagesSchema`, on messages that parsed (checked on every request): each
 * `tool` message names a call of the nearest assistant message before it.
 */
function toolCallIdsMatch(messages: RawMessage[]): boolean {
  let calls: { id?: unknown }[] | undefined;
  for (const message of messages) {
    if (message.role === 'assistant') {
      // Every message passed `accept` just before (edited ones were parsed again), so this is an array.
      calls = (message.tool_calls as { id?: unknown }[] | undefined) ?? [];
    } else if (message.role === 'tool' && !calls?.some((call) => call?.id === message.tool_call_id)) {
      return false;
    }
  }
  return true;
}

/**
 * Throws `RequestValidationError` listing every rule `params` breaks, before any network call. Messages
 * and tool definitions re-sent unchanged are not parsed again (see `acceptedMessages`).
 * @example validateChatCompletionParams(params, { channel: 'plan' })
 */
export function validateChatCompletionParams(
  params: unknown,
  { channel = 'default' }: ValidateChatCompletionOptions = {},
): void {
  if (passesIncrementally(params, channel)) return;
  if (channel === 'plan')
    validateWithSchema(planChatCompletionParamsSchema, 'plan.chat.completions.create', params);
  else validateWithSchema(chatCompletionParamsSchema, 'chat.completions.create', params);
}
