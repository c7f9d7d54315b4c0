import { z } from 'zod';
import { checkParametersSchema } from './check-parameters-schema.js';
import { ruleError } from './field-rules.js';

/** Pattern of a function name (at most 64 characters). */
export const functionNamePattern = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** JSON Schema of a function's parameters, root `type: "object"` with typed properties. */
export const functionParametersSchema = z
  .looseObject({}, { error: ruleError('must be a JSON Schema object') })
  .superRefine((parameters, ctx) => {
    checkParametersSchema(parameters, (path, message) => ctx.addIssue({ code: 'custom', message, path }));
  });

/** A function tool definition. */
export const functionToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string({ error: ruleError('must be a string') }).regex(functionNamePattern, {
      error: `must match ${functionNamePattern.source}`,
    }),
    description: z.string().optional(),
    parameters: functionParametersSchema.optional(),
  }),
});

/** The hosted web-search tool, run by the service. */
export const webSearchToolSchema = z.object({
  type: z.literal('web_search'),
  function: z.object({ description: z.string().optional() }).optional(),
});

/** The hosted knowledge-base retrieval tool; it needs the id of the store to search. */
export const retrievalToolSchema = z.object({
  type: z.literal('retrieval'),
  function: z.object({
    name: z.string().optional(),
    description: z.string().optional(),
    options: z.object(
      {
        vector_store_id: z
          .string({
            error: (issue) =>
              issue.input === undefined ? 'required for a retrieval tool' : 'must be a string',
          })
          .min(1, { error: 'must not be empty' }),
        prompt_template: z.string().optional(),
      },
      {
        error: (issue) =>
          issue.input === undefined
            ? 'required for a retrieval tool'
            : 'must be an object with vector_store_id',
      },
    ),
  }),
});

/** Any entry of `tools`, chosen by `type`. */
export const toolDefinitionSchema = z.discriminatedUnion('type', [
  functionToolSchema,
  webSearchToolSchema,
  retrievalToolSchema,
]);

/** A tool definition as the schema accepts it. */
export type ToolDefinitionInput = z.input<typeof toolDefinitionSchema>;
