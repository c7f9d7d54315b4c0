import type { z } from 'zod';
import { formatIssuePath } from '../../api/schemas/format-issue-path.js';
import type { ResponseFormat } from '../../api/types/chat.js';
import { loadModuleSync } from '../../core/load-module.js';

/** Models that accept `response_format: json_schema` (per the spec); others get `json_object` plus an instruction. */
export const JSON_SCHEMA_MODELS: ReadonlySet<string> = new Set(['svc-3.5-flash', 'svc-3.5-flash-2603']);

/** What a request needs to ask for structured output. */
export interface OutputRequest {
  responseFormat: ResponseFormat;
  /** Appended to the system instructions when the model cannot be given the schema itself. */
  instruction: string | undefined;
}

/** Builds `response_format` (strict json_schema where supported) and, elsewhere, the instruction text. */
export function buildOutputRequest(schema: z.ZodType, model: string, name = 'output'): OutputRequest {
  const jsonSchema = toJsonSchema(schema);
  if (JSON_SCHEMA_MODELS.has(model)) {
    return {
      responseFormat: { type: 'json_schema', json_schema: { name, strict: true, schema: jsonSchema } },
      instruction: undefined,
    };
  }
  return {
    responseFormat: { type: 'json_object' },
    instruction:
      'Answer with a single JSON object, and nothing else, that matches this JSON Schema:\n' +
      JSON.stringify(jsonSchema),
  };
}

/** Result of checking the final answer against the output schema. */
export type ParsedOutput<T> = { ok: true; value: T } | { ok: false; issues: string[]; cause?: unknown };

/** Parses the answer as JSON (tolerating a ```json fence) and validates it with the schema. */
export function parseOutput<T>(schema: z.ZodType<T>, text: string): ParsedOutput<T> {
  let json: unknown;
  try {
    json = JSON.parse(stripFence(text));
  } catch (cause) {
    return { ok: false, issues: [`the answer is not valid JSON (${(cause as Error).message})`], cause };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => `${formatIssuePath(issue.path, '(root)')}: ${issue.message}`),
    cause: result.error,
  };
}

/** What zod 4 classic schemas expose as Standard JSON Schema (`~standard.jsonSchema`). */
interface StandardJsonSchema {
  jsonSchema?: { output(options: { target: string }): unknown };
}

/**
 * The user's schema converts itself (Standard JSON Schema, same output as `z.toJSONSchema`), so
 * svc-agents never imports zod to be loaded; a zod/mini schema has no `jsonSchema`, so zod core's
 * `toJSONSchema` is loaded on that first use.
 */
function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const standard = (schema as { '~standard'?: StandardJsonSchema })['~standard'];
  const converted = standard?.jsonSchema
    ? standard.jsonSchema.output({ target: 'draft-2020-12' })
    : loadModuleSync<typeof import('zod/v4/core')>('zod/v4/core').toJSONSchema(schema);
  const { $schema: _ignored, ...rest } = converted as Record<string, unknown>;
  return rest;
}

// Models in JSON mode sometimes still wrap the object in a Markdown fence.
function stripFence(text: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return match ? match[1]! : text;
}
