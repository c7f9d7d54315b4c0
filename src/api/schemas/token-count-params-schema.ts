import { z } from 'zod';
import { imageUrlSchema, textPartSchema } from './chat-content-part-schemas.js';
import { assistantMessageSchema, systemMessageSchema } from './chat-message-schemas.js';
import { nonEmptyString, ruleError } from './field-rules.js';
import { validateWithSchema } from './validate-with-schema.js';

/** An image part for token counting: `url` only, no `detail`. */
const tokenCountImagePartSchema = z.object({
  type: z.literal('image_url'),
  image_url: z.object({
    url: imageUrlSchema,
    detail: z.never({ error: 'is not accepted by token counting; remove it' }).optional(),
  }),
});

const tokenCountUserMessageSchema = z.object({
  role: z.literal('user'),
  content: z.union(
    [
      z.string(),
      z
        .array(z.discriminatedUnion('type', [textPartSchema, tokenCountImagePartSchema]))
        .min(1, { error: 'must not be an empty array' }),
    ],
    { error: ruleError('must be a string or an array of parts') },
  ),
});

/** A message of `POST /v1/token/count`: system, user (text and image parts) or assistant. */
export const tokenCountMessageSchema = z.discriminatedUnion(
  'role',
  [systemMessageSchema, tokenCountUserMessageSchema, assistantMessageSchema],
  {
    error: (issue) =>
      (issue.input as { role?: unknown } | undefined)?.role === 'tool'
        ? 'the "tool" role is not accepted by token counting; use "system", "user" or "assistant"'
        : undefined,
  },
);

/** Body of `POST /v1/token/count`. */
export const tokenCountParamsSchema = z.object({
  model: nonEmptyString(),
  messages: z.array(tokenCountMessageSchema).min(1, { error: 'must contain at least one message' }),
});

/** Token-count params as the schema accepts them. */
export type TokenCountParamsInput = z.input<typeof tokenCountParamsSchema>;

/** Throws `RequestValidationError` listing every rule a `/v1/token/count` body breaks. */
export function validateTokenCountParams(params: unknown): void {
  validateWithSchema(tokenCountParamsSchema, 'tokens.count', params);
}
