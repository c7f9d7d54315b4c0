import type * as z4 from 'zod/v4/core';
import { formatIssuePath } from '../api/schemas/format-issue-path.js';
import type { ConvertedParameters } from './convert-parameters.js';
import { describeValueType, isMissingKey } from './describe-value-type.js';
import { InvalidToolArgumentsError, type ToolArgumentIssue } from './errors.js';
import type { ParseArgumentsResult } from './tool.js';
import type { Zod3Schema } from './tool-parameters.js';
import { validateJsonSchema } from './validate-json-schema.js';

type Validation = { ok: true; value: unknown } | { ok: false; issues: ToolArgumentIssue[] };

/**
 * Builds a tool's `parseArguments`: `''` (and whitespace) means `{}`; text that is not a JSON object, or
 * breaks the schema, becomes an `InvalidToolArgumentsError` whose message is written for the model.
 */
export function createArgumentsParser<Args>(
  toolName: string,
  parameters: unknown,
  converted: ConvertedParameters,
): (text: string) => ParseArgumentsResult<Args> {
  const validate = createValidator(parameters, converted);
  return (text) => {
    const invalid = (issues: ToolArgumentIssue[], cause?: unknown): ParseArgumentsResult<Args> => ({
      ok: false,
      error: new InvalidToolArgumentsError({ toolName, argumentsText: text, issues, cause }),
    });
    let value: unknown;
    if (text.trim() === '') value = {};
    else {
      try {
        value = JSON.parse(text);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return invalid([{ path: '', message: `arguments are not valid JSON (${reason})` }], error);
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return invalid([{ path: '', message: `expected a JSON object, got ${describeValueType(value)}` }]);
    }
    let result: Validation;
    try {
      result = validate(value);
    } catch (error) {
      // e.g. an async refinement, or a refinement that throws on unexpected input.
      const reason = error instanceof Error ? error.message : String(error);
      return invalid([{ path: '', message: `arguments could not be checked (${reason})` }], error);
    }
    return result.ok ? { ok: true, value: result.value as Args } : invalid(result.issues);
  };
}

function createValidator(
  parameters: unknown,
  converted: ConvertedParameters,
): (value: unknown) => Validation {
  switch (converted.kind) {
    case 'zod4':
      // Standard Schema (`~standard.validate`), implemented by every zod 4 schema, classic and mini:
      // validating needs no import of zod by svc-agents, so importing svc-agents never loads it.
      return (value) => {
        const standard = (parameters as { '~standard': StandardValidate })['~standard'];
        const result = standard.validate(value);
        if (result instanceof Promise) {
          // Nobody awaits it: keep a rejection from surfacing as an unhandled one.
          result.catch(() => {});
          throw new Error(asyncSchemaMessage);
        }
        if (result.issues === undefined) return { ok: true, value: result.value };
        return { ok: false, issues: result.issues.map((issue) => fromZod4Issue(issue, value)) };
      };
    case 'zod3':
      return (value) => {
        const result = (parameters as Zod3Schema).safeParse(value);
        if (result.success) return { ok: true, value: result.data };
        return {
          ok: false,
          issues: result.error.issues.map((issue) => {
            const path = formatIssuePath(issue.path, '');
            if (isMissingKey(value, issue.path)) return { path, message: 'required' };
            if (issue.code === 'invalid_type') {
              return { path, message: `expected ${String(issue.expected)}, got ${String(issue.received)}` };
            }
            return { path, message: issue.message };
          }),
        };
      };
    default:
      return (value) => {
        const issues = validateJsonSchema(converted.jsonSchema, value);
        return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
      };
  }
}

/** `~standard.validate` of a zod 4 schema: zod's own issues, synchronous unless the schema is async. */
interface StandardValidate {
  validate(value: unknown): StandardResult | Promise<StandardResult>;
}
type StandardResult = { value: unknown; issues?: undefined } | { issues: readonly z4.$ZodIssue[] };

// zod's own words when a synchronous parse meets an async refinement or transform.
const asyncSchemaMessage = 'Encountered Promise during synchronous parse. Use .parseAsync() instead.';

function fromZod4Issue(issue: z4.$ZodIssue, root: unknown): ToolArgumentIssue {
  const path = formatIssuePath(issue.path, '');
  if (isMissingKey(root, issue.path)) return { path, message: 'required' };
  if (issue.code === 'invalid_type') {
    // An invalid_type issue's path leads to the offending value itself.
    const got = describeValueType(valueAt(root, issue.path));
    return { path, message: `expected ${issue.expected}, got ${got}` };
  }
  if (issue.code === 'unrecognized_keys') {
    return {
      path,
      message: `unknown ${issue.keys.length === 1 ? 'property' : 'properties'} ${issue.keys.join(', ')}`,
    };
  }
  return { path, message: issue.message };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
