import { z } from 'zod';

/** Version of the serialised `RunState` this build writes and reads. */
export const RUN_STATE_SCHEMA_VERSION = 1;

const usageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  cachedTokens: z.number(),
});

// Messages are kept loose: the wire schemas live in the api layer, and a state must survive fields
// added to messages later (audio, reasoning, ...).
const messageSchema = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']) });

const toolCallStatusSchema = z.enum([
  'ok',
  'invalid-arguments',
  'no-such-tool',
  'error',
  'timeout',
  'aborted',
  'rejected',
  'turn-limit',
]);

const stepToolResultSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown().optional(),
  status: toolCallStatusSchema,
  output: z.unknown().optional(),
  content: z.string(),
});

const stepSchema = z.object({
  index: z.number().int(),
  message: z.looseObject({ role: z.literal('assistant') }),
  text: z.string(),
  reasoning: z.string().optional(),
  toolCalls: z.array(
    z.object({
      toolCallId: z.string(),
      toolName: z.string(),
      arguments: z.string(),
      input: z.unknown().optional(),
    }),
  ),
  hostedToolCalls: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  toolResults: z.array(stepToolResultSchema),
  usage: usageSchema,
  finishReason: z.string().nullable(),
});

const pendingToolCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
  input: z.unknown().optional(),
  approval: z.enum(['none', 'pending', 'approved', 'rejected']),
  rejectionMessage: z.string().optional(),
});

/** The JSON shape of a `RunState`, read back through this schema. */
export const runStateJsonSchema = z.object({
  $schemaVersion: z.literal(RUN_STATE_SCHEMA_VERSION),
  turn: z.number().int().nonnegative(),
  messages: z.array(messageSchema),
  steps: z.array(stepSchema),
  usage: usageSchema,
  pendingToolCalls: z.array(pendingToolCallSchema),
  // Checked by ToolCallLedger.fromJSON, which owns that format.
  ledger: z.unknown(),
  outputRepairs: z.number().int().nonnegative(),
});

/** The parsed JSON of a `RunState`. */
export type RunStateJson = z.infer<typeof runStateJsonSchema>;
