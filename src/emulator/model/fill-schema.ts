import type { TextFacts } from './analyze-text.js';
import { ENUM_LEXICON, NEUTRAL_MEMBERS } from './enum-lexicon.js';
import { extractArithmetics } from './extract-arithmetic.js';
import { timeZoneOfCity } from './places.js';
import { contentWords, STOP_WORDS } from './words.js';

type Schema = Record<string, unknown>;

/** What values are filled from. */
export interface FillSource {
  /** The part of the request a tool call answers (or the whole request). */
  facts: TextFacts;
  /** JSON objects returned by tools earlier in the run (structured output reads their fields). */
  records?: Array<Record<string, unknown>>;
  /** Further text that may justify a choice: tool descriptions and results. */
  context?: string;
}

/** Options of `SchemaFiller`. */
export interface SchemaFillerOptions {
  /** Tool arguments: leave out optional properties the request offers no value for. */
  onlyFound?: boolean;
}

/** How a string parameter is read, from its name, description, format and examples. */
export type ParamKind =
  | 'place'
  | 'expression'
  | 'timezone'
  | 'date'
  | 'time'
  | 'datetime'
  | 'email'
  | 'url'
  | 'id'
  | 'freetext'
  | 'summary'
  | 'name'
  | 'language'
  | 'path'
  | 'generic';

/** Reads a parameter's kind. */
export function paramKind(name: string, schema: Schema): ParamKind {
  const description = typeof schema.description === 'string' ? schema.description : '';
  const examples = Array.isArray(schema.examples) ? schema.examples.join(' ') : '';
  const words = `${name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')} ${description}`.toLowerCase();
  const key = name.toLowerCase();
  const example =
    exampleOf(description) ?? (Array.isArray(schema.examples) ? String(schema.examples[0]) : '');
  if (schema.format === 'date' || /^\d{4}-\d{2}-\d{2}$/.test(example)) return 'date';
  if (schema.format === 'date-time' || /datetime|timestamp/.test(key)) return 'datetime';
  if (schema.format === 'time') return 'time';
  if (schema.format === 'email' || /e-?mail/.test(key)) return 'email';
  if (schema.format === 'uri' || schema.format === 'url' || /^(url|uri|link|website)$/.test(key))
    return 'url';
  if (/time ?zone|\btz\b|iana/.test(words) || /^[A-Z][a-z]+\/[A-Z]/.test(example)) return 'timezone';
  if (/expression|formula|equation|arithmetic|\bmath/.test(words) || /\d\s*[-+*/^]\s*\d/.test(example))
    return 'expression';
  if (/\b(city|cities|town|location|place|destination|origin|country|region|address)\b/.test(words))
    return 'place';
  if (/^(path|file_?path|filename|file_?name)$/.test(key) || /\bpath of the file\b/.test(words))
    return 'path';
  if (/(^|_)date$|^date|\bday\b/.test(key)) return 'date';
  if (/(^|_)time$|^time$/.test(key)) return 'time';
  if (/(^|_)ids?$|[a-z]Ids?$|identifier/.test(name) || /\bid\b/.test(key)) return 'id';
  if (
    /^(q|query|search|question|prompt|text|message|input|keywords|content|topic|body|instructions?|request)$/.test(
      key,
    )
  )
    return 'freetext';
  if (/summary|description|reason|explanation|title|subject|note|comment|headline|sentence|answer/.test(key))
    return 'summary';
  if (/language|locale/.test(key)) return 'language';
  if (/name$/.test(key) || /\bname\b/.test(words)) return 'name';
  void examples;
  return 'generic';
}

function exampleOf(description: string): string | undefined {
  const m =
    /(?:e\.g\.?|for example|such as|like)[,:]?\s+["'“]?([^"'”,;)]+?)["'”]?(?:[,;)]|$|\.\s|\.$|\s+or\s)/i.exec(
      description,
    );
  return m?.[1]?.trim();
}

/** Builds values valid against a JSON Schema from what a request says. */
export class SchemaFiller {
  private readonly used = new Map<string, number>();
  private readonly usedMembers = new Set<unknown>();
  /** Required parameters the request gave no value for (tool arguments only), e.g. a city. */
  readonly missing: Array<{ name: string; kind: ParamKind; description: string }> = [];
  private readonly expressions: string[];
  private readonly words: Set<string>;
  private readonly lower: string;

  constructor(
    private readonly source: FillSource,
    private readonly options: SchemaFillerOptions = {},
  ) {
    this.expressions = extractArithmetics(source.facts.text);
    this.lower = source.facts.text.toLowerCase();
    this.words = new Set(contentWords(source.facts.text));
  }

  /** A value for the whole schema. */
  fill(schema: Schema): unknown {
    return this.build(schema, schema, undefined, true).value;
  }

  private build(raw: Schema, root: Schema, name: string | undefined, required: boolean): Filled {
    const schema = resolve(raw, root);
    if ('const' in schema) return { value: schema.const, found: true };
    const variants = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined;
    if (Array.isArray(variants) && variants.length > 0) {
      const chosen = variants.find((v) => resolve(v, root).type !== 'null') ?? variants[0]!;
      const merged = {
        ...schema,
        anyOf: undefined,
        oneOf: undefined,
        allOf: undefined,
        ...resolve(chosen, root),
      };
      return this.build(merged, root, name, required);
    }
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return this.member(schema, name);
    switch (typeOf(schema)) {
      case 'object':
        return { value: this.object(schema, root), found: true };
      case 'array':
        return this.array(schema, root, name, required);
      case 'number':
      case 'integer':
        return this.number(schema, name);
      case 'boolean':
        return this.boolean(schema, name);
      case 'null':
        return { value: null, found: true };
      default:
        return this.string(schema, name, required);
    }
  }

  private object(schema: Schema, root: Schema): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(properties)) {
      const isRequired = required.has(key) || !this.options.onlyFound;
      const filled = this.build(prop, root, key, isRequired);
      if (filled.found || isRequired) out[key] = filled.value;
    }
    return out;
  }

  private array(schema: Schema, root: Schema, name: string | undefined, required: boolean): Filled {
    const items = resolve((schema.items as Schema | undefined) ?? { type: 'string' }, root);
    const min = Math.max(1, Number(schema.minItems ?? 1));
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : 5;
    const kind = paramKind(name ?? '', { ...items, description: items.description ?? schema.description });
    const out: unknown[] = [];
    let found = false;
    if (
      typeOf(items) === 'string' &&
      !items.enum &&
      (kind === 'place' || kind === 'id' || kind === 'generic')
    ) {
      const pool =
        kind === 'place' ? this.source.facts.places : kind === 'id' ? this.source.facts.ids : this.keywords();
      for (const value of pool.slice(0, max)) out.push(value);
      found = out.length > 0;
    }
    while (out.length < min) {
      const item = this.build(items, root, name, required);
      found ||= item.found;
      out.push(item.value);
    }
    return { value: out, found };
  }

  private member(schema: Schema, name: string | undefined): Filled {
    const members = schema.enum as unknown[];
    const description = `${typeof schema.description === 'string' ? schema.description : ''}`.toLowerCase();
    const context = (this.source.context ?? '').toLowerCase();
    const recordText = JSON.stringify(this.source.records ?? []).toLowerCase();
    let best: unknown;
    let bestScore = 0;
    let bestAt = Number.POSITIVE_INFINITY;
    members.forEach((member) => {
      if (typeof member !== 'string' && typeof member !== 'number') return;
      const text = String(member).toLowerCase();
      const spaced = text.replace(/[_-]+/g, ' ');
      let score = 0;
      const at = position(this.lower, spaced);
      if (at >= 0 || mentions(this.lower, text)) score += 3;
      // "from EUR to USD": the parameter's own name right before the member.
      if (name && position(this.lower, `${name.toLowerCase()} ${spaced}`) >= 0) score += 2;
      if (this.usedMembers.has(member)) score -= 2;
      const cues = new Set<string>([...(ENUM_LEXICON[text] ?? [])]);
      for (const part of spaced.split(' ')) for (const cue of ENUM_LEXICON[part] ?? []) cues.add(cue);
      // "priority: urgent for outages" or "billing (charges, refunds)" in the property's description.
      const described = new RegExp(`${escapeRegExp(text)}\\s*(?::|=|-|\\(|for|when|if)\\s*([^;.|)]+)`).exec(
        description,
      );
      for (const word of contentWords(described?.[1] ?? '')) cues.add(word);
      for (const cue of cues) if (cueIn(this.lower, this.words, cue)) score += 1;
      // A rule in a tool's description ("Enterprise issues are urgent.") that a tool result triggers.
      for (const sentence of context.split(/(?<=[.!?])\s+/)) {
        if (!mentions(sentence, spaced)) continue;
        if (contentWords(sentence).some((w) => w !== spaced && mentions(recordText, w))) score += 3;
      }
      const where = at >= 0 ? at : Number.POSITIVE_INFINITY;
      if (score > bestScore || (score === bestScore && score > 0 && where < bestAt)) {
        best = member;
        bestScore = score;
        bestAt = where;
      }
    });
    if (best !== undefined) {
      this.usedMembers.add(best);
      return { value: best, found: true };
    }
    void name;
    const neutral = members.find((m) => typeof m === 'string' && NEUTRAL_MEMBERS.includes(m.toLowerCase()));
    return { value: neutral ?? schema.default ?? members[0], found: false };
  }

  private number(schema: Schema, name: string | undefined): Filled {
    const fromRecord = this.recordField(name, (v) => typeof v === 'number');
    let value: number | undefined = typeof fromRecord === 'number' ? fromRecord : undefined;
    const numbers = this.source.facts.numbers;
    if (value === undefined && name) {
      // "customer 1001", "limit 5", "top 3": the number right after the parameter's own words.
      for (const key of contentWords(name)) {
        const m = new RegExp(
          `\\b${escapeRegExp(key)}\\w*\\s*(?:#|no\\.?|number|of|=|:)?\\s*(-?\\d+(?:\\.\\d+)?)`,
          'i',
        ).exec(this.source.facts.text);
        const at = m ? m.index + m[0].length - (m[1]?.length ?? 0) : -1;
        const hit = numbers.find((n) => n.at === at);
        if (hit && !this.isUsed('number', String(hit.at))) {
          this.use('number', String(hit.at));
          value = hit.value;
          break;
        }
      }
    }
    if (value === undefined) {
      const next = numbers.find((n) => !this.isUsed('number', String(n.at)));
      if (next) {
        this.use('number', String(next.at));
        value = next.value;
      }
    }
    const found = value !== undefined;
    let out = value ?? (typeof schema.default === 'number' ? schema.default : undefined);
    if (out === undefined) out = typeof schema.minimum === 'number' ? schema.minimum : 1;
    out = clamp(out, schema);
    return { value: schema.type === 'integer' ? Math.round(out) : out, found };
  }

  private boolean(schema: Schema, name: string | undefined): Filled {
    const fromRecord = this.recordField(name, (v) => typeof v === 'boolean');
    if (typeof fromRecord === 'boolean') return { value: fromRecord, found: true };
    const words = contentWords(name ?? '');
    for (const word of words) {
      const at = this.lower.indexOf(word);
      if (at < 0) continue;
      const before = this.lower.slice(Math.max(0, at - 20), at);
      return { value: !/\b(no|not|without|don't|never|dont)\b/.test(before), found: true };
    }
    return { value: typeof schema.default === 'boolean' ? schema.default : false, found: false };
  }

  private string(schema: Schema, name: string | undefined, required: boolean): Filled {
    const kind = paramKind(name ?? '', schema);
    const facts = this.source.facts;
    const fromRecord = this.recordField(name, (v) => typeof v === 'string' && v.length > 0);
    let value: string | undefined;
    switch (kind) {
      case 'place':
        value =
          this.next('place', facts.places) ??
          this.next('name', facts.names) ??
          this.next('quoted', facts.quoted);
        break;
      case 'expression':
        value = this.next('expression', this.expressions);
        break;
      case 'timezone':
        value =
          facts.timeZones[0] ??
          facts.places.map((p) => timeZoneOfCity(p)).find((zone): zone is string => !!zone);
        break;
      case 'date':
        value = this.next('date', facts.dates);
        break;
      case 'time':
        value = this.next('time', facts.times);
        break;
      case 'datetime': {
        const date = facts.dates[0];
        if (date) value = `${date}T${facts.times[0] ?? '09:00'}:00Z`;
        break;
      }
      case 'email':
        value = this.next('email', facts.emails);
        break;
      case 'url':
        value = this.next('url', facts.urls);
        break;
      case 'id':
        value =
          (typeof fromRecord === 'string' ? fromRecord : undefined) ??
          this.idNamedFor(name) ??
          this.next('id', facts.ids) ??
          this.next('quoted', facts.quoted) ??
          this.nextNumberText();
        break;
      case 'path':
        value = this.next('path', facts.paths) ?? this.next('quoted', facts.quoted);
        break;
      case 'freetext':
        value = facts.quoted[0] ?? withoutToolPhrase(stripRequest(facts.text), this.source.context);
        break;
      case 'summary':
        // A tool call's optional note is not something the request asked for.
        value =
          this.next('quoted', facts.quoted) ??
          (!this.options.onlyFound || required
            ? summarize(facts.text, this.source.records ?? [])
            : undefined);
        break;
      case 'language':
        value = /\b(french|german|spanish|italian|japanese|chinese|portuguese|dutch|english)\b/i
          .exec(facts.text)?.[1]
          ?.replace(/^./, (c) => c.toUpperCase());
        break;
      case 'name':
        value =
          (typeof fromRecord === 'string' ? fromRecord : undefined) ??
          this.next('quoted', facts.quoted) ??
          calledName(facts.text) ??
          this.next('name', facts.names) ??
          facts.leadingName;
        break;
      default:
        value =
          (typeof fromRecord === 'string' ? fromRecord : undefined) ??
          this.next('quoted', facts.quoted) ??
          calledName(facts.text) ??
          this.next('name', facts.names);
    }
    if (value && STOP_WORDS.has(value.toLowerCase())) value = undefined;
    const found = value !== undefined && value !== '';
    if (!found) {
      if (required && this.options.onlyFound && STRICT_KINDS.has(kind)) {
        this.missing.push({ name: name ?? 'value', kind, description: String(schema.description ?? '') });
      }
      value = fallbackString(kind, schema, facts, name);
    }
    let out = value ?? '';
    if (typeof schema.maxLength === 'number') out = out.slice(0, schema.maxLength);
    if (typeof schema.minLength === 'number') out = out.padEnd(schema.minLength, '.');
    return { value: out, found };
  }

  /** The id the request ties to this parameter: `file-abc` for `file_id`, `1234` in "knowledge base 1234". */
  private idNamedFor(name: string | undefined): string | undefined {
    if (!name) return undefined;
    const words = contentWords(name).filter((w) => w !== 'id' && w !== 'identifier');
    if (words.length === 0) return undefined;
    const facts = this.source.facts;
    const prefixed = facts.ids.find(
      (id) =>
        !this.isUsed('id', id) &&
        words.some((w) => id.toLowerCase().startsWith(`${w}-`) || id.toLowerCase().startsWith(`${w}_`)),
    );
    if (prefixed) {
      this.use('id', prefixed);
      return prefixed;
    }
    const after = new RegExp(
      `\\b${words.map(escapeRegExp).join('\\w*\\s+')}\\w*\\s*(?:id\\s*)?[:#]?\\s*([\\w-]+)`,
      'i',
    ).exec(facts.text)?.[1];
    if (!after) return undefined;
    if (facts.ids.includes(after) && !this.isUsed('id', after)) {
      this.use('id', after);
      return after;
    }
    const number = facts.numbers.find(
      (n) => String(n.value) === after && !this.isUsed('number', String(n.at)),
    );
    if (number) {
      this.use('number', String(number.at));
      return after;
    }
    return undefined;
  }

  private recordField(name: string | undefined, ok: (value: unknown) => boolean): unknown {
    if (!name) return undefined;
    for (const record of this.source.records ?? []) {
      if (name in record && ok(record[name])) return record[name];
    }
    return undefined;
  }

  private keywords(): string[] {
    return [...new Set(contentWords(this.source.facts.text))].slice(0, 3);
  }

  private nextNumberText(): string | undefined {
    const next = this.source.facts.numbers.find((n) => !this.isUsed('number', String(n.at)));
    if (!next) return undefined;
    this.use('number', String(next.at));
    return String(next.value);
  }

  private next(pool: string, values: string[]): string | undefined {
    const value = values.find((v) => !this.isUsed(pool, v));
    if (value !== undefined) this.use(pool, value);
    return value;
  }

  private isUsed(pool: string, value: string): boolean {
    return this.used.has(`${pool}\u0000${value}`);
  }

  private use(pool: string, value: string): void {
    this.used.set(`${pool}\u0000${value}`, 1);
  }
}

interface Filled {
  value: unknown;
  /** The request gave this value (not a default). */
  found: boolean;
}

const STRICT_KINDS = new Set<ParamKind>(['place', 'expression', 'id', 'email', 'url', 'path']);

function fallbackString(kind: ParamKind, schema: Schema, facts: TextFacts, name?: string): string {
  if (typeof schema.default === 'string') return schema.default;
  switch (kind) {
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'datetime':
      return `${new Date().toISOString().slice(0, 19)}Z`;
    case 'time':
      return '09:00';
    case 'timezone':
      return 'UTC';
    case 'email':
      return 'user@example.com';
    case 'url':
      return 'https://example.com';
    case 'language':
      return 'English';
    case 'summary':
      return summarize(facts.text, []);
    default: {
      const words = contentWords(facts.text);
      return stripRequest(facts.text) || words[0] || name || 'value';
    }
  }
}

/** `called docs`, `named "Q3 report"`: the name a request gives. */
function calledName(text: string): string | undefined {
  return /\b(?:called|named|titled)\s+["'“]?([\w.-]+(?:\s+[\w.-]+)?)["'”]?/i.exec(text)?.[1];
}

/** The request without a leading "please search the web for" or similar, and without its question mark. */
export function stripRequest(text: string): string {
  return text
    .replace(
      /^(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:search(?:\s+the\s+\w+)?(?:\s+for)?|look\s+up|find(?:\s+out)?|google|tell\s+me(?:\s+about)?)\s+/i,
      '',
    )
    .replace(/[\s?!.]+$/, '')
    .trim();
}

/** Verbs that only say "use the tool": "Run the slow search about comets". */
const GENERIC_VERBS = new Set(['run', 'do', 'start', 'perform', 'execute', 'create', 'add', 'make', 'new']);

/**
 * The request without a leading phrase that only names the tool it asks for: "Schedule a reminder to water
 * the plants" gives `water the plants` to a reminder tool described as "Schedule a reminder ...", and "Run the
 * slow search about comets" gives `comets` to "A slow search through the archive". A name after "to" stays
 * ("Send a message to Bob ...").
 */
export function withoutToolPhrase(text: string, context: string | undefined): string {
  if (!context) return text;
  const m =
    /^(\w+\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+(about|regarding|on|for|to)\s+(\S.*)$/is.exec(text);
  if (!m) return text;
  const [, phrase = '', preposition = '', rest = ''] = m;
  if (preposition.toLowerCase() === 'to' && /^\p{Lu}/u.test(rest)) return text;
  const described = new Set(contentWords(context));
  const named = contentWords(phrase).filter((w) => !GENERIC_VERBS.has(w));
  return named.length > 0 && named.every((w) => described.has(w)) ? rest : text;
}

/** A one-sentence summary of a request, led by the subject a tool result names ("Ada (enterprise): ..."). */
export function summarize(text: string, records: Array<Record<string, unknown>>): string {
  const first = text.split(/(?<=[.!?])\s+/)[0] ?? text;
  let clause = first.replace(/^[\p{L}\d #-]{1,30}:\s*/u, '').replace(/[\s.!?]+$/, '');
  clause = clause.replace(/^(?:hi|hello|hey)[,!]?\s+/i, '');
  const record = records.find((r) => typeof r.name === 'string');
  let subject = '';
  if (record) {
    const extra = Object.entries(record).find(
      ([k, v]) => k !== 'name' && typeof v === 'string' && v.length <= 20,
    )?.[1] as string | undefined;
    subject = `${record.name as string}${extra ? ` (${extra})` : ''}: `;
  }
  const sentence = `${subject}${clause.charAt(0).toUpperCase()}${clause.slice(1)}`;
  return sentence.length > 160 ? `${sentence.slice(0, 159)}\u2026` : `${sentence}.`;
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

function clamp(value: number, schema: Schema): number {
  let out = value;
  if (typeof schema.minimum === 'number') out = Math.max(schema.minimum, out);
  if (typeof schema.maximum === 'number') out = Math.min(schema.maximum, out);
  if (typeof schema.exclusiveMinimum === 'number' && out <= schema.exclusiveMinimum)
    out = schema.exclusiveMinimum + 1;
  if (typeof schema.exclusiveMaximum === 'number' && out >= schema.exclusiveMaximum)
    out = schema.exclusiveMaximum - 1;
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mentions(haystack: string, needle: string): boolean {
  return position(haystack, needle) >= 0;
}

function position(haystack: string, needle: string): number {
  if (!needle) return -1;
  const m = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(needle)}($|[^\\p{L}\\p{N}])`, 'iu').exec(haystack);
  return m ? m.index : -1;
}

function cueIn(lower: string, words: Set<string>, cue: string): boolean {
  if (cue.includes(' ') || /[^a-z]/.test(cue)) return lower.includes(cue);
  return (
    words.has(cue) || mentions(lower, cue) || [...words].some((w) => w.startsWith(cue) && cue.length >= 4)
  );
}
