import { z } from 'zod';
import { chatMessagesSchema } from './chat-message-schemas.js';
import { checkChatModelRules, checkDefaultChannelRules, checkPlanChannelRules } from './chat-model-rules.js';
import { toolDefinitionSchema } from './chat-tool-schemas.js';
import { integerBetween, nonEmptyString, numberBetween, stringOrStrings } from './field-rules.js';
import { validateWithSchema } from './validate-with-schema.js';

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

/**
 * Throws `RequestValidationError` listing every rule `params` breaks, before any network call.
 * @example validateChatCompletionParams(params, { channel: 'plan' })
 */
export function validateChatCompletionParams(
  params: unknown,
  { channel = 'default' }: { channel?: ChatChannel } = {},
): void {
  if (channel === 'plan')
    validateWithSchema(planChatCompletionParamsSchema, 'plan.chat.completions.create', params);
  else validateWithSchema(chatCompletionParamsSchema, 'chat.completions.create', params);
}
