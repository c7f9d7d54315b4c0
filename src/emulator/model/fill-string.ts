import type { TextFacts } from './analyze-text.js';
import { type ParamKind, paramKind } from './param-kind.js';
import { timeZoneOfCity } from './places.js';
import { calledName, stripRequest, summarize, withoutToolPhrase } from './request-phrases.js';
import type { Schema } from './schema-utils.js';
import { escapeRegExp } from './text-match.js';
import type { ValuePools } from './value-pools.js';
import { contentWords, STOP_WORDS } from './words.js';

/** A required parameter the request gave no value for (tool arguments only), e.g. a city. */
export interface MissingParam {
  /** The parameter's name. */
  name: string;
  /** How the parameter is read. */
  kind: ParamKind;
  /** The parameter's description, or empty. */
  description: string;
}

/** What `fillString` reads values from and records what it used or missed into. */
export interface StringFill {
  /** The part of the request the value answers. */
  facts: TextFacts;
  /** JSON objects returned by tools earlier in the run. */
  records: Array<Record<string, unknown>> | undefined;
  /** Tool descriptions and results that may justify a choice. */
  context: string | undefined;
  /** Arithmetic expressions found in the request. */
  expressions: string[];
  /** Tool arguments: leave out optional values the request offers nothing for. */
  onlyFound: boolean | undefined;
  /** Values already given to other parameters. */
  pools: ValuePools;
  /** Where a required parameter without a value is recorded. */
  missing: MissingParam[];
  /** The same-named field of an earlier tool result, if any non-empty string. */
  fromRecord: unknown;
}

/** A string valid against `schema` for the parameter `name`, read from the request as its kind says. */
export function fillString(
  fill: StringFill,
  schema: Schema,
  name: string | undefined,
  required: boolean,
): { value: string; found: boolean } {
  const kind = paramKind(name ?? '', schema);
  const { facts, pools } = fill;
  const fromRecord = fill.fromRecord;
  let value: string | undefined;
  const recorded = typeof fromRecord === 'string' ? fromRecord : undefined;
  // A name-like value: a quoted text, a code identifier, "called ...", a capitalised name.
  const named = () =>
    recorded ??
    pools.next('quoted', facts.quoted) ??
    pools.next('identifier', facts.identifiers) ??
    calledName(facts.text) ??
    pools.next('name', facts.names);
  const object = () => (fill.onlyFound ? objectOfRequest(facts.text, fill.context) : undefined);
  const single = SINGLE_POOLS[kind];
  if (single) value = pools.next(kind, facts[single]);
  else
    switch (kind) {
      case 'place':
        value =
          pools.next('place', facts.places) ??
          pools.next('name', facts.names) ??
          pools.next('quoted', facts.quoted);
        break;
      case 'expression':
        value = pools.next('expression', fill.expressions);
        break;
      case 'timezone':
        value =
          facts.timeZones[0] ??
          facts.places.map((p) => timeZoneOfCity(p)).find((zone): zone is string => !!zone);
        break;
      case 'datetime': {
        const date = facts.dates[0];
        if (date) value = `${date}T${facts.times[0] ?? '09:00'}:00Z`;
        break;
      }
      case 'id':
        value =
          recorded ??
          idNamedFor(name, facts, pools) ??
          pools.next('id', facts.ids) ??
          pools.next('quoted', facts.quoted) ??
          nextNumberText(facts, pools);
        break;
      case 'path':
        value = pools.next('path', facts.paths) ?? pools.next('quoted', facts.quoted);
        break;
      case 'currency':
        value = currencyFor(name ?? '', schema, facts, pools);
        break;
      case 'street':
        value = pools.next('street', facts.streets) ?? pools.next('place', facts.places);
        break;
      case 'freetext':
        value = facts.quoted[0] ?? withoutToolPhrase(stripRequest(facts.text), fill.context);
        break;
      case 'summary':
        // A tool call's optional note is not something the request asked for.
        value =
          pools.next('quoted', facts.quoted) ??
          (!fill.onlyFound || required ? summarize(facts.text, fill.records ?? []) : undefined);
        break;
      case 'language':
        value = /\b(french|german|spanish|italian|japanese|chinese|portuguese|dutch|english)\b/i
          .exec(facts.text)?.[1]
          ?.replace(/^./, (c) => c.toUpperCase());
        break;
      case 'name':
        value = named() ?? facts.leadingName ?? object();
        break;
      default:
        value = named() ?? object();
    }
  if (value && STOP_WORDS.has(value.toLowerCase())) value = undefined;
  const found = value !== undefined && value !== '';
  if (!found) {
    if (required && fill.onlyFound && STRICT_KINDS.has(kind)) {
      fill.missing.push({ name: name ?? 'value', kind, description: String(schema.description ?? '') });
    }
    value = fallbackString(kind, schema, facts, name);
  }
  let out = value ?? '';
  if (typeof schema.maxLength === 'number') out = out.slice(0, schema.maxLength);
  if (typeof schema.minLength === 'number') out = out.padEnd(schema.minLength, '.');
  return { value: out, found };
}

/** The id the request ties to this parameter: `file-abc` for `file_id`, `1234` in "knowledge base 1234". */
function idNamedFor(name: string | undefined, facts: TextFacts, pools: ValuePools): string | undefined {
  if (!name) return undefined;
  const words = contentWords(name).filter((w) => w !== 'id' && w !== 'identifier');
  if (words.length === 0) return undefined;
  const prefixed = facts.ids.find(
    (id) =>
      !pools.isUsed('id', id) &&
      words.some((w) => id.toLowerCase().startsWith(`${w}-`) || id.toLowerCase().startsWith(`${w}_`)),
  );
  if (prefixed) {
    pools.use('id', prefixed);
    return prefixed;
  }
  const after = new RegExp(
    `\\b${words.map(escapeRegExp).join('\\w*\\s+')}\\w*\\s*(?:id\\s*)?[:#]?\\s*([\\w-]+)`,
    'i',
  ).exec(facts.text)?.[1];
  if (after && facts.ids.includes(after) && !pools.isUsed('id', after)) {
    pools.use('id', after);
    return after;
  }
  const number = facts.numbers.find(
    (n) => String(n.value) === after && !pools.isUsed('number', String(n.at)),
  );
  if (number) {
    pools.use('number', String(number.at));
    return after;
  }
  return idNearestTo(words, facts, pools);
}

/**
 * The currency a parameter names: the source is the one written with the amount ("100 USD", "50 GBP"),
 * the target the other one ("How many euros is 50 GBP?" converts GBP to EUR).
 */
function currencyFor(name: string, schema: Schema, facts: TextFacts, pools: ValuePools): string | undefined {
  const role = `${name} ${String(schema.description ?? '')}`.toLowerCase();
  const target = /\b(to|target|into|quote)\b/.test(role) && !/\b(from|source|base)\b/.test(role);
  const ordered = [...facts.currencies].sort((a, b) => Number(b.amount) - Number(a.amount));
  const codes = [...new Set(ordered.map((c) => c.code))];
  const picked = target ? codes.find((c, i) => i > 0 && !pools.isUsed('currency', c)) : codes[0];
  const value = picked ?? codes.find((c) => !pools.isUsed('currency', c));
  if (value) pools.use('currency', value);
  return value;
}

/**
 * What a request acts on, for a plain string parameter: the last run of its words that neither the tool's
 * name and description nor common words explain ("Order 3 bananas" gives `bananas` to `create_order`).
 */
function objectOfRequest(text: string, context: string | undefined): string | undefined {
  const known = new Set(contentWords(context ?? ''));
  const runs: string[][] = [[]];
  for (const word of text.match(/[\p{L}][\p{L}'-]*|\S/gu) ?? []) {
    const [stemmed] = contentWords(word);
    if (stemmed && !known.has(stemmed) && !REQUEST_WORDS.has(stemmed)) runs.at(-1)!.push(word);
    else if (runs.at(-1)!.length > 0) runs.push([]);
  }
  const last = runs.filter((run) => run.length > 0).at(-1);
  return last?.join(' ');
}

/** Words that ask rather than name a thing: "Yes, please order", "Do we have". */
const REQUEST_WORDS = new Set(contentWords('yes okay sure thanks now right away again'));

/**
 * The unused id written nearest a word of the parameter's name: in "Link X as the secondary account of
 * primary account Y", `secondary_id` is X and `primary_id` is Y, whatever their order.
 */
function idNearestTo(words: string[], facts: TextFacts, pools: ValuePools): string | undefined {
  const lower = facts.text.toLowerCase();
  const mentions = words.flatMap((w) => [...lower.matchAll(new RegExp(`\\b${escapeRegExp(w)}`, 'g'))]);
  let best: { id: string; gap: number } | undefined;
  for (const id of facts.ids) {
    if (pools.isUsed('id', id)) continue;
    const start = facts.text.indexOf(id);
    for (const m of mentions) {
      const at = m.index ?? 0;
      const gap = start >= at ? start - at : at - (start + id.length);
      if (gap >= 0 && gap <= 40 && (!best || gap < best.gap)) best = { id, gap };
    }
  }
  if (best) pools.use('id', best.id);
  return best?.id;
}

function nextNumberText(facts: TextFacts, pools: ValuePools): string | undefined {
  const next = facts.numbers.find((n) => !pools.isUsed('number', String(n.at)));
  if (!next) return undefined;
  pools.use('number', String(next.at));
  return String(next.value);
}

const STRICT_KINDS = new Set<ParamKind>(['place', 'expression', 'id', 'email', 'url', 'path']);

/** Kinds read from one list of the request's facts, each value used once. */
const SINGLE_POOLS: Partial<Record<ParamKind, 'dates' | 'times' | 'emails' | 'urls'>> = {
  date: 'dates',
  time: 'times',
  email: 'emails',
  url: 'urls',
};

/** What a kind gets when the request gives nothing (a schema default first). */
const FALLBACKS: Partial<Record<ParamKind, (facts: TextFacts) => string>> = {
  date: (facts) => facts.today,
  datetime: (facts) => `${facts.today}T09:00:00Z`,
  time: () => '09:00',
  timezone: () => 'UTC',
  email: () => 'user@example.com',
  url: () => 'https://example.com',
  language: () => 'English',
  summary: (facts) => summarize(facts.text, []),
};

function fallbackString(kind: ParamKind, schema: Schema, facts: TextFacts, name?: string): string {
  if (typeof schema.default === 'string') return schema.default;
  const fallback = FALLBACKS[kind];
  if (fallback) return fallback(facts);
  return stripRequest(facts.text) || contentWords(facts.text)[0] || name || 'value';
}
