import { z } from 'zod';
import type { Channel } from '../types/request-options.js';
import { isJsonObject, nonEmptyString, ruleError } from './field-rules.js';
import { planModelId } from './model-ids.js';
import { unsupportedContentType, validateWithSchema } from './validate-with-schema.js';

type Ctx = z.core.$RefinementCtx<unknown>;
type FieldKind = 'string' | 'object';

/**
 * Required fields of the Messages-format blocks the spec names. Other block types and extra fields pass
 * through: the Messages format grows often and the service only counts tokens here.
 */
const blockFields: Readonly<Record<string, ReadonlyArray<readonly [string, FieldKind]>>> = {
  text: [['text', 'string']],
  image: [['source', 'object']],
  document: [['source', 'object']],
  tool_use: [
    ['id', 'string'],
    ['name', 'string'],
    ['input', 'object'],
  ],
  tool_result: [['tool_use_id', 'string']],
};

function checkBlock(block: Record<string, unknown>, ctx: Ctx): void {
  const fields = typeof block.type === 'string' ? blockFields[block.type] : undefined;
  for (const [field, kind] of fields ?? []) {
    const value = block[field];
    const ok = kind === 'string' ? typeof value === 'string' : isJsonObject(value);
    if (!ok) {
      ctx.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? `required for a "${block.type}" block`
            : `must be ${kind === 'string' ? 'a string' : 'an object'}`,
        path: [field],
      });
    }
  }
}

/** A Messages content block: `{ type, ... }`, with the required fields of known types checked. */
export const messagesContentBlockSchema = z
  .looseObject({ type: z.string() }, { error: ruleError('must be a content block object with a type') })
  .superRefine(checkBlock);

const blocksOrText = z.union(
  [z.string(), z.array(messagesContentBlockSchema).min(1, { error: 'must not be an empty array' })],
  { error: ruleError('must be a string or an array of content blocks') },
);

/** A Messages-format tool: custom tools need an `input_schema` object; server tools (with a `type`) pass. */
export const messagesToolSchema = z
  .looseObject({ name: nonEmptyString(), type: z.string().optional(), description: z.string().optional() })
  .superRefine((tool, ctx) => {
    if (tool.type !== undefined && tool.type !== 'custom') return;
    const schema = tool.input_schema;
    if (!isJsonObject(schema)) {
      ctx.addIssue({
        code: 'custom',
        message: schema === undefined ? 'required' : 'must be an object',
        path: ['input_schema'],
      });
    } else if (schema.type !== 'object') {
      ctx.addIssue({ code: 'custom', message: 'must be "object"', path: ['input_schema', 'type'] });
    }
  });

const messagesCountTokensObject = z.object({
  model: nonEmptyString(),
  messages: z
    .array(z.object({ role: z.enum(['user', 'assistant']), content: blocksOrText }))
    .min(1, { error: 'must contain at least one message' }),
  system: blocksOrText.optional(),
  tools: z.array(messagesToolSchema).optional(),
});

/** Body of `POST /v1/messages/count_tokens` (Messages format; `max_tokens` may be omitted). */
export const messagesCountTokensParamsSchema = messagesCountTokensObject;

function checkPlanBlocks(blocks: unknown, path: PropertyKey[], ctx: Ctx): void {
  if (!Array.isArray(blocks)) return;
  for (const [index, block] of blocks.entries()) {
    if (!isJsonObject(block)) continue;
    if (block.type === 'image' || block.type === 'document') {
      ctx.addIssue({
        code: 'custom',
        message: `${block.type} input is not supported by ${planModelId} on the plan channel`,
        path: [...path, index],
        params: unsupportedContentType,
      });
    } else if (block.type === 'tool_result') {
      checkPlanBlocks(block.content, [...path, index, 'content'], ctx);
    }
  }
}

/** The same body on the plan channel: only `svc-router-v1`, no image or document blocks, no web search. */
export const planMessagesCountTokensParamsSchema = messagesCountTokensObject.superRefine(
  (params, ctx) => {
    if (!isJsonObject(params)) return;
    if (params.model !== planModelId) {
      if (typeof params.model === 'string') {
        ctx.addIssue({
          code: 'custom',
          message: `the plan channel accepts only "${planModelId}"`,
          path: ['model'],
        });
      }
      return;
    }
    if (Array.isArray(params.messages)) {
      for (const [index, message] of params.messages.entries()) {
        if (isJsonObject(message)) checkPlanBlocks(message.content, ['messages', index, 'content'], ctx);
      }
    }
    if (Array.isArray(params.tools)) {
      for (const [index, tool] of params.tools.entries()) {
        const isWebSearch =
          isJsonObject(tool) &&
          ((typeof tool.type === 'string' && tool.type.startsWith('web_search')) ||
            tool.name === 'web_search');
        if (isWebSearch) {
          ctx.addIssue({
            code: 'custom',
            message: `the web_search tool is not supported by ${planModelId} on the plan channel`,
            path: ['tools', index],
            params: unsupportedContentType,
          });
        }
      }
    }
  },
  { when: () => true },
);

/** Messages count-tokens params as the schema accepts them. */
export type MessagesCountTokensParamsInput = z.input<typeof messagesCountTokensParamsSchema>;

/** Throws `RequestValidationError` when a Messages count-tokens body breaks a rule. */
export function validateMessagesCountTokensParams(
  params: unknown,
  { channel = 'default' }: { channel?: Channel } = {},
): void {
  if (channel === 'plan') {
    validateWithSchema(planMessagesCountTokensParamsSchema, 'plan.messages.countTokens', params);
  } else {
    validateWithSchema(messagesCountTokensParamsSchema, 'messages.countTokens', params);
  }
}
