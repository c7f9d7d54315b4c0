import type { z } from 'zod';
import { loadZod } from '../core/load-module.js';
import { TOOL_CALL_STATUSES } from '../tools/tool.js';

/**
 * Version of the serialised `RunState` this build writes. Version 2 added the agent in charge, the turn
 * budget and the guardrail repairs; version 1 states are still read (those fields take their defaults).
 */
export const RUN_STATE_SCHEMA_VERSION = 2;

/** The versions `RunState.fromJSON` reads. */
export const READABLE_RUN_STATE_VERSIONS: readonly number[] = [1, 2];

function createRunStateJsonSchema() {
  const { z } = loadZod();
  const usageSchema = z.object({
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
    cachedTokens: z.number(),
    cost: z.number().optional(),
  });

  // Messages are kept loose: the wire schemas live in the api layer, and a state must survive fields
  // added to messages later (audio, reasoning, ...).
  const messageSchema = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']) });

  const toolCallStatusSchema = z.enum([...TOOL_CALL_STATUSES, 'turn-limit']);

  const stepToolResultSchema = z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown().optional(),
    status: toolCallStatusSchema,
    output: z.unknown().optional(),
    content: z.string(),
    sources: z
      .array(
        z.object({
          sourceType: z.literal('document'),
          id: z.string(),
          title: z.string(),
          fileId: z.string(),
          score: z.number().optional(),
        }),
      )
      .optional(),
    // Times (epoch ms), kept since the run inspector: absent in older states.
    startedAt: z.number().optional(),
    finishedAt: z.number().optional(),
    eager: z.literal(true).optional(),
    approval: z
      .object({
        requestedAt: z.number(),
        decidedAt: z.number().optional(),
        decision: z.enum(['approved', 'rejected']),
      })
      .optional(),
  });

  const stepSchema = z.object({
    index: z.number().int(),
    message: z.looseObject({ role: z.literal('assistant') }),
    text: z.string(),
    reasoning: z.string().optional(),
    audio: z.object({ data: z.string(), format: z.literal('wav'), transcript: z.string() }).optional(),
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
    fallback: z
      .object({ model: z.string(), failed: z.array(z.object({ model: z.string(), reason: z.string() })) })
      .optional(),
    timing: z
      .object({
        requestedAt: z.number(),
        sentAt: z.number().optional(),
        firstTokenAt: z.number().optional(),
        doneAt: z.number(),
        retries: z
          .array(
            z.object({
              at: z.number(),
              attempt: z.number(),
              delayMs: z.number(),
              status: z.number().optional(),
              rateLimited: z.boolean(),
              model: z.string(),
            }),
          )
          .optional(),
        fallbacks: z
          .array(z.object({ at: z.number(), from: z.string(), to: z.string(), reason: z.string() }))
          .optional(),
      })
      .optional(),
    model: z.string().optional(),
  });

  const pendingToolCallSchema = z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    arguments: z.string(),
    input: z.unknown().optional(),
    approval: z.enum(['none', 'pending', 'approved', 'rejected']),
    rejectionMessage: z.string().optional(),
    clientSide: z.literal(true).optional(),
    clientOutput: z.unknown().optional(),
    // The paused run of an agent used as a tool (a saved RunState, read back by RunState.fromJSON).
    subRun: z.unknown().optional(),
    approvalRequestedAt: z.number().optional(),
    decidedAt: z.number().optional(),
    startedAt: z.number().optional(),
    finishedAt: z.number().optional(),
    eager: z.literal(true).optional(),
  });

  return z.object({
    $schemaVersion: z.union([z.literal(1), z.literal(RUN_STATE_SCHEMA_VERSION)]),
    turn: z.number().int().nonnegative(),
    messages: z.array(messageSchema),
    steps: z.array(stepSchema),
    usage: usageSchema,
    pendingToolCalls: z.array(pendingToolCallSchema),
    // Checked by ToolCallLedger.fromJSON, which owns that format.
    ledger: z.unknown(),
    outputRepairs: z.number().int().nonnegative(),
    // Added in version 2.
    currentAgent: z.string().optional(),
    turnLimit: z.number().int().nonnegative().optional(),
    guardrailRepairs: z.number().int().nonnegative().optional(),
    // Kept since the run inspector (optional: older states have none); checked loosely, as display data.
    faults: z
      .array(z.looseObject({ step: z.number(), requestedAt: z.number(), at: z.number(), error: z.string() }))
      .optional(),
    resumes: z
      .array(
        z.object({
          at: z.number(),
          from: z.enum(['running', 'interrupted', 'failed']),
          worker: z.string(),
          inFlight: z.array(z.string()),
          lastCheckpointAt: z.number().optional(),
          steps: z.number().int().nonnegative().optional(),
        }),
      )
      .optional(),
  });
}

// Built on the first `RunState.fromJSON`, not when svc-agents is imported: zod is most of a cold import.
let runStateJsonSchema: ReturnType<typeof createRunStateJsonSchema> | undefined;

/** The JSON shape of a `RunState`; a saved state is read back through this schema. */
export function getRunStateJsonSchema(): ReturnType<typeof createRunStateJsonSchema> {
  runStateJsonSchema ??= createRunStateJsonSchema();
  return runStateJsonSchema;
}

/** The parsed JSON of a `RunState`. */
export type RunStateJson = z.infer<ReturnType<typeof createRunStateJsonSchema>>;
