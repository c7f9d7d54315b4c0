import { matchesJsonType } from '../../tools/validate-json-schema.js';
import { MAX_BACKTRACKING_TEST, nestsQuantifiers } from '../work-bounds.js';
import { arrayShape, resolve, type Schema, typeOf } from './schema-utils.js';

// The emulator's own check of what it produces against the schema it was given: the keywords a tool or
// a structured output uses (type, enum, const, string length, pattern, format, number bounds, multipleOf,
// array size and uniqueness, required and closed objects). A value failing it is never sent.

const FORMATS: Record<string, (text: string) => boolean> = {
  uuid: (t) => /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(t),
  ipv4: (t) => /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(t),
  hostname: (t) =>
    t.length <= 253 &&
    /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i.test(
      t,
    ),
  date: (t) => isCalendarDate(t),
  // RFC 3339 full-time: the offset is required, as JSON Schema validators (ajv-formats) check it.
  time: (t) => /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/i.test(t),
  'date-time': (t) => {
    const [date, time] = t.split(/t|\s/i);
    return (
      date !== undefined &&
      time !== undefined &&
      isCalendarDate(date) &&
      /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/i.test(time)
    );
  },
  email: (t) =>
    /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i.test(
      t,
    ),
  uri: (t) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(t),
  url: (t) => /^https?:\/\/[^\s/$.?#].[^\s]*$/i.test(t),
};

/** True when the emulator can check this string format; others are taken as they are. */
export function isKnownFormat(format: unknown): format is string {
  return typeof format === 'string' && format in FORMATS;
}

/** True when `value` satisfies `schema` (local `$ref`s resolved against `root`). */
export function checkValue(
  value: unknown,
  raw: Schema | boolean,
  root: Schema = typeof raw === 'object' ? raw : {},
): boolean {
  const schema = resolve(raw, root);
  if (schema.not !== undefined && checkValue(value, schema.not as Schema | boolean, root)) return false;
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((m) => JSON.stringify(m) === JSON.stringify(value)))
    return false;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && !variants.some((v) => checkValue(value, v as Schema, root))) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((v) => checkValue(value, v as Schema, root)))
    return false;
  if (!matchesType(value, schema)) return false;
  if (typeof value === 'string') return checkString(value, schema);
  if (typeof value === 'number') return checkNumber(value, schema);
  if (Array.isArray(value)) return checkArray(value, schema, root);
  if (value !== null && typeof value === 'object')
    return checkObject(value as Record<string, unknown>, schema, root);
  return true;
}

/** True when `value` is a multiple of `step`, as JSON Schema validators compute it. */
export function isMultipleOf(value: number, step: number): boolean {
  const ratio = value / step;
  return Number.isFinite(ratio) && ratio % 1 === 0;
}

function matchesType(value: unknown, schema: Schema): boolean {
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type
      ? [schema.type as string]
      : [];
  if (types.length === 0) return true;
  return types.some((type) => matchesJsonType(type, value));
}

function checkString(value: string, schema: Schema): boolean {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return false;
  if (typeof schema.pattern === 'string') {
    // A pattern with a quantified group holding a quantifier (`^(a+)+$`) backtracks exponentially on a
    // long near-miss: such a value is not tested and counts as no match (the filler then samples one).
    if (value.length > MAX_BACKTRACKING_TEST && nestsQuantifiers(schema.pattern)) return false;
    try {
      if (!new RegExp(schema.pattern, 'u').test(value)) return false;
    } catch {
      return false;
    }
  }
  if (isKnownFormat(schema.format) && !FORMATS[schema.format]!(value)) return false;
  return true;
}

function checkNumber(value: number, schema: Schema): boolean {
  if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return false;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return false;
  if (typeof schema.multipleOf === 'number' && !isMultipleOf(value, schema.multipleOf)) return false;
  return true;
}

function checkArray(value: unknown[], schema: Schema, root: Schema): boolean {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) return false;
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return false;
  if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length)
    return false;
  const { prefix, rest } = arrayShape(schema, root);
  return value.every((v, i) => checkValue(v, prefix[i] ?? rest, root));
}

function checkObject(value: Record<string, unknown>, schema: Schema, root: Schema): boolean {
  const properties = (schema.properties ?? {}) as Record<string, Schema | boolean>;
  for (const key of (schema.required as string[] | undefined) ?? []) if (!(key in value)) return false;
  for (const [key, v] of Object.entries(value)) {
    const prop = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const additional = schema.additionalProperties as Schema | boolean | undefined;
    if (prop !== undefined) {
      if (!checkValue(v, prop, root)) return false;
    } else if (additional !== undefined && !checkValue(v, additional, root)) return false;
  }
  if (typeOf(schema) === 'object' && typeof schema.minProperties === 'number')
    return Object.keys(value).length >= schema.minProperties;
  return true;
}

function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
