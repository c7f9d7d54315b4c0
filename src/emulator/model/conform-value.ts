import { createHash } from 'node:crypto';
import type { TextFacts } from './analyze-text.js';
import { checkValue } from './check-value.js';
import { samplePattern } from './sample-pattern.js';
import type { Schema } from './schema-utils.js';

// Repairs for a value the filler read from the request but that breaks its schema: another value from
// the request that fits, else one made to fit (a format's example, a sample of the pattern). Undefined
// means nothing valid could be made, and the model asks the user instead.

/** A string valid against `schema`, and whether the request gave it; undefined when none can be made. */
export function conformString(
  schema: Schema,
  facts: TextFacts,
  current: string,
  seed: string,
): { value: string; found: boolean } | undefined {
  const fits = (candidate: string | undefined): candidate is string =>
    candidate !== undefined && checkValue(candidate, schema);
  for (const candidate of requestCandidates(facts, current)) {
    if (fits(candidate)) return { value: candidate, found: true };
  }
  const made = madeFor(schema, facts, seed);
  for (const candidate of made) if (fits(candidate)) return { value: candidate, found: false };
  return undefined;
}

/** A number valid against `schema` as near `current` as the bounds and `multipleOf` allow, else undefined. */
export function conformNumber(current: number, schema: Schema, integer: boolean): number | undefined {
  const fits = (n: number) => checkValue(n, { ...schema, type: integer ? 'integer' : 'number' });
  if (fits(current)) return current;
  const lower = lowerBound(schema, integer);
  const upper = upperBound(schema, integer);
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  const candidates: number[] = [];
  if (step !== undefined) {
    const near = Math.round(current / step);
    for (const k of [near, near + 1, near - 1, Math.ceil(lower / step), Math.floor(upper / step)]) {
      if (!Number.isFinite(k)) continue;
      candidates.push(Number((k * step).toPrecision(15)), k * step);
      // An integer that is a multiple of a fractional step (0.5 -> 2).
      if (integer) candidates.push(Math.ceil(k * step), Math.floor(k * step));
    }
    const start = Math.ceil((Number.isFinite(lower) ? lower : current) / step);
    for (let k = start; k < start + 50; k++) candidates.push(Number((k * step).toPrecision(15)));
  } else {
    const inside = Math.min(Math.max(current, lower), upper);
    candidates.push(
      integer ? Math.round(inside) : inside,
      integer ? Math.ceil(lower) : lower,
      integer ? Math.floor(upper) : upper,
    );
    if (Number.isFinite(lower) && Number.isFinite(upper)) candidates.push((lower + upper) / 2);
  }
  return candidates.find((n) => Number.isFinite(n) && fits(n));
}

function lowerBound(schema: Schema, integer: boolean): number {
  let lower = Number.NEGATIVE_INFINITY;
  if (typeof schema.minimum === 'number') lower = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') {
    const above = integer
      ? Math.floor(schema.exclusiveMinimum) + 1
      : nextAbove(schema.exclusiveMinimum, schema);
    lower = Math.max(lower, above);
  }
  return lower;
}

function upperBound(schema: Schema, integer: boolean): number {
  let upper = Number.POSITIVE_INFINITY;
  if (typeof schema.maximum === 'number') upper = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number') {
    const below = integer
      ? Math.ceil(schema.exclusiveMaximum) - 1
      : nextBelow(schema.exclusiveMaximum, schema);
    upper = Math.min(upper, below);
  }
  return upper;
}

/** A value just above an exclusive minimum: a whole step when the range allows, else the midpoint. */
function nextAbove(bound: number, schema: Schema): number {
  const top = typeof schema.maximum === 'number' ? schema.maximum : schema.exclusiveMaximum;
  if (typeof top === 'number' && top - bound <= 1) return (bound + top) / 2;
  return bound + 1;
}

function nextBelow(bound: number, schema: Schema): number {
  const bottom = typeof schema.minimum === 'number' ? schema.minimum : schema.exclusiveMinimum;
  if (typeof bottom === 'number' && bound - bottom <= 1) return (bound + bottom) / 2;
  return bound - 1;
}

/** Values the request holds, most specific first: ids, quotes, addresses, then its words as written and in capitals. */
function requestCandidates(facts: TextFacts, current: string): string[] {
  const words = facts.text
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
  return [
    ...facts.ids,
    ...facts.quoted,
    ...facts.emails,
    ...facts.urls,
    ...facts.paths,
    ...facts.dates,
    ...facts.places,
    ...facts.names,
    ...words,
    ...facts.numbers.map((n) => String(n.value)),
    current.toUpperCase(),
    current.toLowerCase(),
    ...words.map((word) => word.toUpperCase()),
    ...words.map((word) => word.toLowerCase()),
  ];
}

/** Values made to fit a format or a pattern, derived from the request (never the clock or a random draw). */
function madeFor(schema: Schema, facts: TextFacts, seed: string): string[] {
  const hash = createHash('sha256').update(`${seed}\u0000${facts.text}`).digest('hex');
  const date = facts.dates[0] ?? facts.today;
  const time = facts.times[0] ?? '09:00';
  const host = facts.urls.map((url) => safeHost(url)).find(Boolean);
  const made: string[] = [];
  switch (schema.format) {
    case 'uuid':
      made.push(
        `${hash.slice(0, 8)}-${hash.slice(8, 12)}-4${hash.slice(13, 16)}-8${hash.slice(17, 20)}-${hash.slice(20, 32)}`,
      );
      break;
    case 'ipv4':
      made.push(
        ...(/\b(?:\d{1,3}\.){3}\d{1,3}\b/.exec(facts.text) ?? []),
        `192.0.2.${(Number.parseInt(hash.slice(0, 2), 16) % 254) + 1}`,
      );
      break;
    case 'hostname':
      made.push(
        ...(host ? [host] : []),
        ...(/\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\b/i.exec(facts.text) ?? []),
        'example.com',
      );
      break;
    case 'date':
      made.push(date);
      break;
    case 'time':
      made.push(`${time}:00Z`);
      break;
    case 'date-time':
      made.push(`${date}T${time}:00Z`);
      break;
    case 'email':
      made.push('user@example.com');
      break;
    case 'uri':
    case 'url':
      made.push('https://example.com');
      break;
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    const seedNumber = Number.parseInt(hash.slice(0, 6), 16);
    for (let i = 0; i < 4; i++) {
      const sample = samplePattern(schema.pattern, seedNumber + i);
      if (sample !== undefined) made.push(sample);
    }
  }
  if (typeof schema.minLength === 'number' && made.length === 0) made.push('x'.repeat(schema.minLength));
  return made;
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
