import type * as z4 from 'zod/v4/core';
import type { FunctionParameters } from '../api/types/chat.js';
import { loadModuleSync } from '../core/load-module.js';
import { ToolDefinitionError } from './errors.js';
import { findUncallableSchema } from './find-uncallable-schema.js';
import { detectParametersKind, type ParametersKind } from './tool-parameters.js';

/** A tool's parameters as wire JSON Schema, plus the family they came from. */
export interface ConvertedParameters {
  kind: Exclude<ParametersKind, 'unknown'>;
  jsonSchema: FunctionParameters;
}

/**
 * Turns `parameters` into the wire JSON Schema: zod 4 through `z.toJSONSchema` (input side, so defaulted
 * fields stay optional for the model), zod 3 through zod-to-json-schema, plain JSON Schema as given.
 * `$schema` is dropped; anything that is not a root object, or a conversion that lost the properties of a
 * non-empty object, is a `ToolDefinitionError` rather than a silently empty tool.
 */
export function convertParameters(toolName: string, parameters: unknown): ConvertedParameters {
  const kind = detectParametersKind(parameters);
  const fail = (rule: string, cause?: unknown): never => {
    throw new ToolDefinitionError({ toolName, rule, cause });
  };
  if (kind === 'zod3' || kind === 'zod4') {
    const uncallable = findUncallableSchema(parameters);
    if (uncallable !== undefined) fail(uncallable);
  }
  let schema: Record<string, unknown>;
  let expectedKeys: string[] | undefined;
  switch (kind) {
    case 'zod4': {
      const zodSchema = parameters as z4.$ZodType;
      try {
        schema = zod4ToJsonSchema(zodSchema);
      } catch (error) {
        fail(`parameters cannot be converted to JSON Schema (${errorText(error)})`, error);
      }
      const def = zodSchema._zod.def as { type: string; shape?: Record<string, unknown> };
      if (def.type === 'object' && def.shape) expectedKeys = Object.keys(def.shape);
      break;
    }
    case 'zod3': {
      const source = parameters as { _def: { shape?: () => Record<string, unknown> }; shape?: unknown };
      try {
        // `none`: inline repeated sub-schemas; models handle `$ref` poorly.
        const { zodToJsonSchema } = loadModuleSync<typeof import('zod-to-json-schema')>('zod-to-json-schema');
        schema = zodToJsonSchema(parameters as never, { $refStrategy: 'none' }) as Record<string, unknown>;
      } catch (error) {
        fail(`parameters cannot be converted to JSON Schema (${errorText(error)})`, error);
      }
      const shape = typeof source._def.shape === 'function' ? source._def.shape() : source.shape;
      if (typeof shape === 'object' && shape !== null) expectedKeys = Object.keys(shape);
      break;
    }
    case 'json-schema':
      schema = structuredClone(parameters as Record<string, unknown>);
      break;
    default:
      return fail('parameters must be a zod object schema or a JSON Schema object with type "object"');
  }
  return { kind, jsonSchema: finishSchema(schema!, expectedKeys, fail) };
}

/** What zod 4 classic schemas expose as Standard JSON Schema (`~standard.jsonSchema`). */
interface StandardJsonSchema {
  jsonSchema?: { input(options: { target: string; libraryOptions?: object }): unknown };
}

/**
 * The user's zod 4 schema converts itself: classic schemas through Standard JSON Schema (their
 * `libraryOptions` are z.toJSONSchema's params), so svc-agents never imports zod just to be loaded;
 * zod/mini schemas lack `jsonSchema`, so zod core's `toJSONSchema` is loaded on that first use.
 */
function zod4ToJsonSchema(schema: z4.$ZodType): Record<string, unknown> {
  const standard = (schema as { '~standard'?: StandardJsonSchema })['~standard'];
  if (standard?.jsonSchema) {
    // `input()` fixes `io: 'input'`; `libraryOptions` go to zod's JSON Schema context as they are.
    const libraryOptions = { unrepresentable: 'throw' };
    return standard.jsonSchema.input({ target: 'draft-2020-12', libraryOptions }) as Record<string, unknown>;
  }
  const core = loadModuleSync<typeof import('zod/v4/core')>('zod/v4/core');
  return core.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
}

function finishSchema(
  schema: Record<string, unknown>,
  expectedKeys: string[] | undefined,
  fail: (rule: string) => never,
): FunctionParameters {
  delete schema.$schema;
  const convertedKeys =
    typeof schema.properties === 'object' && schema.properties ? Object.keys(schema.properties) : [];
  if (expectedKeys && expectedKeys.length > 0 && convertedKeys.length === 0) {
    // zod-to-json-schema answers `{}` for schemas it does not understand, e.g. zod 4 objects.
    fail(
      `parameters lost their properties in conversion (expected ${expectedKeys.join(', ')}); ` +
        'pass a zod 4 schema from "zod" or a zod 3 schema from "zod/v3"',
    );
  }
  if (schema.type !== 'object') {
    fail(`parameters must describe an object (root type "object"), got ${describeRoot(schema)}`);
  }
  const properties = schema.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    fail('parameters.properties must be an object');
  }
  for (const [key, value] of Object.entries(properties as object)) {
    if (typeof value !== 'object' || value === null)
      fail(`parameters.properties.${key} must be a schema object`);
  }
  const required = schema.required;
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((item) => typeof item !== 'string'))
  ) {
    fail('parameters.required must be an array of property names');
  }
  stripSafeIntegerBounds(schema);
  return { ...schema, type: 'object', properties: properties as Record<string, Record<string, unknown>> };
}

function describeRoot(schema: Record<string, unknown>): string {
  if (typeof schema.type === 'string') return `"${schema.type}"`;
  if (schema.anyOf || schema.oneOf) return 'a union';
  return 'no type';
}

/** zod 4 adds ±MAX_SAFE_INTEGER bounds to every `.int()`; they only cost prompt tokens. */
function stripSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) stripSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.type === 'integer') {
    if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
    if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  }
  for (const value of Object.values(record)) stripSafeIntegerBounds(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
