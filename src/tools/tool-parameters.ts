import type * as z4 from 'zod/v4/core';

/** Minimal shape of a zod 3 schema (from `zod/v3`); only what detection and validation use. */
export interface Zod3Schema<Out = unknown> {
  readonly _def: unknown;
  readonly _output: Out;
  safeParse(
    value: unknown,
  ): { success: true; data: Out } | { success: false; error: { issues: Zod3Issue[] } };
}

/** One zod 3 validation issue. */
export interface Zod3Issue {
  code: string;
  path: (string | number)[];
  message: string;
  expected?: unknown;
  received?: unknown;
}

/** A plain JSON Schema for a tool's parameters; the root must be `type: "object"`. */
export interface JsonSchemaParameters {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly [key: string]: unknown;
}

/** What `defineTool` accepts as `parameters`: a zod 4 schema, a zod 3 schema, or a plain JSON Schema. */
export type ToolParameters = z4.$ZodType | Zod3Schema | JsonSchemaParameters;

/** Arguments type inferred from `parameters`: the zod output type, or a plain record for JSON Schema. */
export type InferToolArgs<P> = P extends z4.$ZodType
  ? z4.output<P>
  : P extends Zod3Schema<infer Out>
    ? Out
    : Record<string, unknown>;

/** Which family a `parameters` value belongs to; zod 4 schemas carry `_zod`, zod 3 ones only `_def`. */
export type ParametersKind = 'zod4' | 'zod3' | 'json-schema' | 'unknown';

/** Detects the family of a `parameters` value without trusting its TypeScript type. */
export function detectParametersKind(parameters: unknown): ParametersKind {
  if (typeof parameters !== 'object' || parameters === null) return 'unknown';
  if ('_zod' in parameters) return 'zod4';
  if ('_def' in parameters && typeof (parameters as { safeParse?: unknown }).safeParse === 'function') {
    return 'zod3';
  }
  if ('type' in parameters || 'properties' in parameters) return 'json-schema';
  return 'unknown';
}
