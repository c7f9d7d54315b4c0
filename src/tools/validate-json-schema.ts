import { formatIssuePath } from '../api/schemas/format-issue-path.js';
import { describeValueType } from './describe-value-type.js';
import type { ToolArgumentIssue } from './errors.js';

type Schema = Record<string, unknown>;

/**
 * Checks a value against the basics of a plain JSON Schema: `type`, `enum`, `const`, `properties`,
 * `required`, `additionalProperties: false`, `items`, `anyOf`/`oneOf`, `nullable`. Formats, lengths and
 * ranges are left to the tool itself; the point is to give the model a clear message for common mistakes.
 */
export function validateJsonSchema(
  schema: Schema,
  value: unknown,
  path: PropertyKey[] = [],
): ToolArgumentIssue[] {
  const at = formatIssuePath(path, '');
  if (value === null && schema.nullable === true) return [];
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union) && union.length > 0) {
    const results = union.map((branch) => validateJsonSchema(branch, value, path));
    if (results.some((issues) => issues.length === 0)) return [];
    return results.length === 1 ? results[0]! : [{ path: at, message: 'matches none of the allowed shapes' }];
  }
  if ('const' in schema && !Object.is(schema.const, value)) {
    return [{ path: at, message: `expected ${JSON.stringify(schema.const)}` }];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => Object.is(option, value))) {
    return [{ path: at, message: `expected one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}` }];
  }
  const types =
    typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.length > 0 && !types.some((type) => matchesJsonType(type, value))) {
    return [{ path: at, message: `expected ${types.join(' or ')}, got ${describeValueType(value)}` }];
  }
  const issues: ToolArgumentIssue[] = [];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!Object.hasOwn(record, key))
        issues.push({ path: formatIssuePath([...path, key], ''), message: 'required' });
    }
    for (const [key, item] of Object.entries(record)) {
      const propertySchema = properties[key];
      if (propertySchema) issues.push(...validateJsonSchema(propertySchema, item, [...path, key]));
      else if (schema.additionalProperties === false) {
        issues.push({ path: formatIssuePath([...path, key], ''), message: 'unknown property' });
      }
    }
  }
  if (Array.isArray(value) && typeof schema.items === 'object' && schema.items !== null) {
    value.forEach((item, index) => {
      issues.push(...validateJsonSchema(schema.items as Schema, item, [...path, index]));
    });
  }
  return issues;
}

/** Whether `value` has the JSON Schema `type` named (an unknown type name matches anything). */
export function matchesJsonType(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}
