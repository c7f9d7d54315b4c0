import { ToolOutputTypeError } from './errors.js';
import { truncationMarker } from './model-texts.js';

/** Default cap on a tool message, in characters (agent `maxToolOutputChars`, tool `maxOutputChars`). */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 100_000;

/**
 * Turns a tool's return value into `tool` message text: strings as is, `undefined` as '', anything else as
 * faithful JSON (a `Map` as an object or its entries, a `Set` as an array, an `Error` as its name, message
 * and fields, a `Date` as ISO text, a BigInt as its digits, a circular reference as `"[Circular: path]"`).
 * A function or a symbol anywhere throws {@link ToolOutputTypeError}. Text longer than `maxChars` is cut,
 * with a marker telling the model how much was left out.
 */
export function formatToolOutput(output: unknown, maxChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS): string {
  return truncateToolOutput(toText(output), maxChars);
}

/**
 * The text of a tool's output. Plain data (what most tools return) goes straight to `JSON.stringify`,
 * which writes it exactly as the careful walk would, without the walk's copies and path strings
 * (bench/results/2026-11-24-format-tool-output.md); anything the walk treats its own way sends the whole
 * value there. Exported beside {@link toTextCarefully} for the property test that pins the two together.
 */
export function toText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  if (output === null || typeof output === 'number' || typeof output === 'boolean')
    return JSON.stringify(output);
  if (isPlainData(output, 0)) return JSON.stringify(output);
  return toTextCarefully(output);
}

/** The simple path of {@link toText}: a JSON-ready copy by {@link toJsonValue}, then `JSON.stringify`. */
export function toTextCarefully(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(toJsonValue(output, 'output', [])) ?? '';
}

/** Deeper than this, {@link isPlainData} gives up: the value may be cyclic, which only the walk names. */
const MAX_PLAIN_DEPTH = 64;

/**
 * True when `JSON.stringify(value)` writes what the careful walk would: strings, numbers, booleans, null,
 * `undefined` inside containers, plain arrays and objects (no `toJSON`, no `__proto__` key, no symbol
 * keys) and ordinary Dates. A getter of a plain object is read here and again by `JSON.stringify`.
 */
function isPlainData(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined') return true;
  if (type !== 'object' || depth > MAX_PLAIN_DEPTH) return false;
  const object = value as { toJSON?: unknown };
  const proto = Object.getPrototypeOf(object);
  if (proto === Array.prototype) {
    if (object.toJSON !== undefined) return false;
    const array = value as unknown[];
    for (let i = 0; i < array.length; i++) if (!isPlainData(array[i], depth + 1)) return false;
    return true;
  }
  if (proto === Object.prototype || proto === null) {
    if (object.toJSON !== undefined) return false;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key === '__proto__' || !isPlainData(record[key], depth + 1)) return false;
    }
    return Object.getOwnPropertySymbols(record).length === 0;
  }
  return proto === Date.prototype && object.toJSON === Date.prototype.toJSON;
}

/** `text` cut to `maxChars` characters (never inside a surrogate pair) with a marker saying how much was cut. */
export function truncateToolOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const cut = text.length - end;
  return `${text.slice(0, end)}\n${truncationMarker(cut, text.length, 'characters')}`;
}

/** A JSON-ready copy of `value`; `ancestors` holds the objects on the path (cycles are named, not followed). */
function toJsonValue(
  value: unknown,
  path: string,
  ancestors: Array<{ object: object; path: string }>,
): unknown {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'bigint':
      return value.toString();
    case 'function':
      throw new ToolOutputTypeError('function', path);
    case 'symbol':
      throw new ToolOutputTypeError('symbol', path);
  }
  if (value === null) return null;
  const object = value as object;
  const cycle = ancestors.find((entry) => entry.object === object);
  if (cycle !== undefined) return `[Circular: ${cycle.path}]`;
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  ancestors.push({ object, path });
  try {
    if (Array.isArray(object)) {
      return object.map((item, i) => {
        const converted = toJsonValue(item, `${path}[${i}]`, ancestors);
        return converted === undefined ? null : converted;
      });
    }
    if (object instanceof Map) return mapToJson(object, path, ancestors);
    if (object instanceof Set) {
      return [...object].map((item, i) => toJsonValue(item, `${path}[${i}]`, ancestors) ?? null);
    }
    if (object instanceof Error) return errorToJson(object, path, ancestors);
    if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
      return Array.from(object as unknown as ArrayLike<number | bigint>, (n) =>
        toJsonValue(n, path, ancestors),
      );
    }
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJsonValue(toJSON.call(object), path, ancestors);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      const converted = toJsonValue((object as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
      if (converted !== undefined) out[key] = converted;
    }
    for (const symbol of Object.getOwnPropertySymbols(object)) {
      if (Object.prototype.propertyIsEnumerable.call(object, symbol))
        throw new ToolOutputTypeError('symbol key', `${path}[${String(symbol)}]`);
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

function mapToJson(
  map: Map<unknown, unknown>,
  path: string,
  ancestors: Array<{ object: object; path: string }>,
) {
  const plainKeys = [...map.keys()].every((key) => typeof key === 'string' || typeof key === 'number');
  if (plainKeys) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of map) {
      const converted = toJsonValue(item, `${path}.${String(key)}`, ancestors);
      if (converted !== undefined) out[String(key)] = converted;
    }
    return out;
  }
  // Object keys cannot stand for these keys: the entries, as pairs.
  return [...map].map(([key, item], i) => [
    toJsonValue(key, `${path}[${i}][0]`, ancestors) ?? null,
    toJsonValue(item, `${path}[${i}][1]`, ancestors) ?? null,
  ]);
}

function errorToJson(error: Error, path: string, ancestors: Array<{ object: object; path: string }>) {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of Object.keys(error)) {
    if (key === 'stack') continue;
    const converted = toJsonValue(
      (error as unknown as Record<string, unknown>)[key],
      `${path}.${key}`,
      ancestors,
    );
    if (converted !== undefined) out[key] = converted;
  }
  if (error.cause !== undefined && !('cause' in out)) {
    const cause = toJsonValue(error.cause, `${path}.cause`, ancestors);
    if (cause !== undefined) out.cause = cause;
  }
  return out;
}
