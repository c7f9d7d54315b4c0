import type { MessageHints } from './words.js';

type Schema = Record<string, unknown>;

const FREE_TEXT_NAMES = new Set([
  'query',
  'q',
  'text',
  'question',
  'prompt',
  'message',
  'input',
  'search',
  'keywords',
  'content',
  'topic',
  'description',
]);

/** Hands out values found in a message, each at most once, so several parameters get different values. */
export class HintPicker {
  private number = 0;
  private string = 0;
  private readonly strings: string[];

  constructor(readonly hints: MessageHints) {
    this.strings = [...hints.quoted, ...hints.names];
  }

  nextNumber(): number | undefined {
    return this.hints.numbers[this.number++];
  }

  nextString(): string | undefined {
    return this.strings[this.string++];
  }

  private readonly usedMembers = new Set<unknown>();

  /** True when the message mentions this text (case-insensitive, whole word). */
  mentions(value: string): boolean {
    return this.position(value) >= 0;
  }

  /**
   * The enum member the message names, in the order the message names them, each used once when it can be:
   * "250 EUR to USD" gives `from: EUR`, `to: USD`. Falls back to the first member.
   */
  pickMember(members: unknown[]): unknown {
    const named = members
      .filter((m): m is string => typeof m === 'string' && this.position(m) >= 0)
      .sort((a, b) => this.position(a) - this.position(b));
    const chosen = named.find((m) => !this.usedMembers.has(m)) ?? named[0] ?? members[0];
    this.usedMembers.add(chosen);
    return chosen;
  }

  private position(value: string): number {
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'iu').exec(this.hints.text);
    return match ? match.index : -1;
  }
}

/** Options of `valueFromSchema`. */
export interface SchemaValueOptions {
  /** Leave out optional properties the message offers no value for (tool arguments). */
  onlyRequiredOrFound?: boolean;
}

/** Builds a value that validates against a JSON Schema, filled with values found in the message. */
export function valueFromSchema(
  schema: Schema,
  picker: HintPicker,
  options: SchemaValueOptions = {},
): unknown {
  return build(schema, schema, picker, options, undefined);
}

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return schema;
  let node: unknown = root;
  for (const key of ref.slice(2).split('/').filter(Boolean)) node = (node as Schema | undefined)?.[key];
  return node && typeof node === 'object' ? resolve(node as Schema, root) : {};
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null') ?? 'null';
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function build(
  raw: Schema,
  root: Schema,
  picker: HintPicker,
  options: SchemaValueOptions,
  name?: string,
): unknown {
  const schema = resolve(raw, root);
  if ('const' in schema) return schema.const;
  const variants = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) {
    const chosen = variants.find((v) => resolve(v, root).type !== 'null') ?? variants[0]!;
    return build(
      { ...schema, anyOf: undefined, oneOf: undefined, allOf: undefined, ...chosen },
      root,
      picker,
      options,
      name,
    );
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return picker.pickMember(schema.enum);
  }
  switch (typeOf(schema)) {
    case 'object':
      return buildObject(schema, root, picker, options);
    case 'array': {
      const count = Math.max(1, Number(schema.minItems ?? 1));
      const items = (schema.items as Schema | undefined) ?? { type: 'string' };
      return Array.from({ length: count }, () => build(items, root, picker, options, name));
    }
    case 'number':
    case 'integer':
      return buildNumber(schema, picker);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return buildString(schema, picker, name);
  }
}

function buildObject(schema: Schema, root: Schema, picker: HintPicker, options: SchemaValueOptions): unknown {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties)) {
    if (options.onlyRequiredOrFound && !required.has(key) && !offersValue(resolve(prop, root), picker, key))
      continue;
    out[key] = build(prop, root, picker, options, key);
  }
  return out;
}

function offersValue(schema: Schema, picker: HintPicker, key: string): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.some((v) => typeof v === 'string' && picker.mentions(v));
  return picker.mentions(key.replace(/_/g, ' '));
}

function buildNumber(schema: Schema, picker: HintPicker): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  let value = picker.nextNumber() ?? (typeof schema.default === 'number' ? schema.default : (min ?? 1));
  if (min !== undefined) value = Math.max(min, value);
  if (max !== undefined) value = Math.min(max, value);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    value = schema.exclusiveMinimum + 1;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    value = schema.exclusiveMaximum - 1;
  return schema.type === 'integer' ? Math.round(value) : value;
}

function buildString(schema: Schema, picker: HintPicker, name?: string): string {
  let value: string;
  switch (schema.format) {
    case 'date':
      value = '2025-01-01';
      break;
    case 'date-time':
      value = '2025-01-01T00:00:00Z';
      break;
    case 'email':
      value = 'user@example.com';
      break;
    case 'uri':
    case 'url':
      value = 'https://example.com';
      break;
    default:
      value =
        name && FREE_TEXT_NAMES.has(name.toLowerCase())
          ? picker.hints.text
          : (picker.nextString() ??
            (typeof schema.default === 'string' ? schema.default : picker.hints.text));
  }
  if (!value) value = name ?? 'value';
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (maxLength !== undefined) value = value.slice(0, maxLength);
  return value.padEnd(minLength, '.');
}
