import { MAX_FILL_DEPTH, MAX_FILLED_VALUES, tooLarge } from '../work-bounds.js';
import type { TextFacts } from './analyze-text.js';
import { checkValue } from './check-value.js';
import { conformNumber, conformString } from './conform-value.js';
import { ENUM_LEXICON, NEUTRAL_MEMBERS } from './enum-lexicon.js';
import { extractArithmetics } from './extract-arithmetic.js';
import { fillString, type MissingParam } from './fill-string.js';
import { paramKind } from './param-kind.js';
import { acceptsNothing, arrayShape, clamp, resolve, type Schema, typeOf } from './schema-utils.js';
import { cueIn, escapeRegExp, mentions, position } from './text-match.js';
import { ValuePools } from './value-pools.js';
import { contentWords } from './words.js';

/**
 * Nesting past which the filler makes only what the schema requires: a recursive `$ref` (a tree with
 * optional children, a nullable linked list) then ends in a leaf instead of recursing forever.
 */
const REQUIRED_ONLY_DEPTH = 4;

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

/** Builds values valid against a JSON Schema from what a request says. */
export class SchemaFiller {
  private readonly pools = new ValuePools();
  private readonly usedMembers = new Set<unknown>();
  /** Required parameters the request gave no value for (tool arguments only), e.g. a city. */
  readonly missing: MissingParam[] = [];
  /** Required values no valid value could be made for (a pattern it cannot sample, impossible bounds). */
  readonly unmet: string[] = [];
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

  /**
   * A value for the whole schema. Every part is checked against its schema; a required part that cannot
   * be made valid is listed in `unmet` (and, for tool arguments, in `missing`): the model then asks a
   * question instead of sending an invalid value.
   */
  fill(schema: Schema): unknown {
    const { value } = this.build(schema, schema, undefined, true, 0);
    if (this.unmet.length === 0 && !checkValue(value, schema)) this.unmet.push('value');
    return value;
  }

  /** True when everything `fill` produced is valid against its schema. */
  get valid(): boolean {
    return this.unmet.length === 0;
  }

  private filled = 0;

  private build(
    raw: Schema | boolean,
    root: Schema,
    name: string | undefined,
    required: boolean,
    depth: number,
  ): Filled {
    const schema = resolve(raw, root);
    if (++this.filled > MAX_FILLED_VALUES) throw tooLarge(`more than ${MAX_FILLED_VALUES} values`);
    if (depth > MAX_FILL_DEPTH) throw tooLarge(`nesting deeper than ${MAX_FILL_DEPTH} levels`);
    if (acceptsNothing(schema)) return this.unmetValue(null, name, schema, required);
    if ('const' in schema) return { value: schema.const, found: true };
    const variants = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined;
    if (Array.isArray(variants) && variants.length > 0) {
      // Deep in a recursive schema the `null` branch ends the recursion; above it, a real value.
      const wantNull = depth > REQUIRED_ONLY_DEPTH;
      const chosen = variants.find((v) => (resolve(v, root).type === 'null') === wantNull) ?? variants[0]!;
      const merged = {
        ...schema,
        anyOf: undefined,
        oneOf: undefined,
        allOf: undefined,
        ...resolve(chosen, root),
      };
      return this.build(merged, root, name, required, depth);
    }
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return this.member(schema, name);
    switch (typeOf(schema)) {
      case 'object':
        return { value: this.object(schema, root, depth), found: true };
      case 'array':
        return this.array(schema, root, name, required, depth);
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

  private object(schema: Schema, root: Schema, depth: number): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, Schema | boolean>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(properties)) {
      if (!required.has(key) && (prop === false || depth >= REQUIRED_ONLY_DEPTH)) continue;
      const isRequired = required.has(key) || !this.options.onlyFound;
      const unmetBefore = this.unmet.length;
      const missingBefore = this.missing.length;
      const filled = this.build(prop, root, key, required.has(key), depth + 1);
      // An optional value that could not be made valid is left out rather than sent broken.
      if ((filled.invalid || this.unmet.length > unmetBefore) && !required.has(key)) {
        this.unmet.length = unmetBefore;
        this.missing.length = missingBefore;
        continue;
      }
      if (filled.found || isRequired) out[key] = filled.value;
    }
    return out;
  }

  private array(
    schema: Schema,
    root: Schema,
    name: string | undefined,
    required: boolean,
    depth: number,
  ): Filled {
    const { prefix, rest } = arrayShape(schema, root);
    const items = schema.items === undefined && prefix.length === 0 ? { type: 'string' } : rest;
    const minItems = Number(schema.minItems ?? 0);
    const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 5, Math.max(5, minItems));
    // One item shows the shape; deep in a recursive schema, or where no item is allowed, only the minimum.
    const least = depth >= REQUIRED_ONLY_DEPTH || acceptsNothing(items) ? minItems : Math.max(1, minItems);
    // A tuple (`prefixItems`) fills each of its positions the maximum allows, then items up to the minimum.
    const tuple = Math.min(
      prefix.length,
      typeof schema.maxItems === 'number' ? schema.maxItems : prefix.length,
    );
    const min = Math.max(least, tuple);
    const kind = paramKind(name ?? '', { ...items, description: items.description ?? schema.description });
    const out: unknown[] = [];
    let found = false;
    if (
      prefix.length === 0 &&
      typeOf(items) === 'string' &&
      !items.enum &&
      (kind === 'place' || kind === 'id')
    ) {
      const pool = kind === 'place' ? this.source.facts.places : this.source.facts.ids;
      // Only request words the items accept: "the" is no `^[a-z]+\.[a-z]+$`.
      for (const value of pool) if (out.length < max && checkValue(value, items, root)) out.push(value);
      found = out.length > 0;
    }
    // A pool may hold more values than the items allow, or the same one twice.
    const unique = schema.uniqueItems === true;
    const kept = unique
      ? out.filter((v, i) => out.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i)
      : out;
    kept.splice(max);
    for (let attempts = 0; kept.length < min && attempts < min + 5; attempts++) {
      const item = this.build(prefix[kept.length] ?? items, root, name, required, depth + 1);
      found ||= item.found;
      const taken = (v: unknown) => kept.some((w) => JSON.stringify(w) === JSON.stringify(v));
      if (unique && taken(item.value)) {
        // Items from a closed list: the next member not in the array yet.
        const other = Array.isArray(items.enum) ? items.enum.find((member) => !taken(member)) : undefined;
        if (other !== undefined) kept.push(other);
        continue;
      }
      kept.push(item.value);
    }
    if (!checkValue(kept, schema, root)) return this.unmetValue(kept, name, schema, required);
    return { value: kept, found };
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
        if (hit && !this.pools.isUsed('number', String(hit.at))) {
          this.pools.use('number', String(hit.at));
          value = hit.value;
          break;
        }
      }
    }
    if (value === undefined) {
      const next = numbers.find((n) => !this.pools.isUsed('number', String(n.at)));
      if (next) {
        this.pools.use('number', String(next.at));
        value = next.value;
      }
    }
    const found = value !== undefined;
    // "15%" for a 0-1 fraction is 0.15: a percentage is read as such.
    if (value !== undefined && value > 1 && typeof schema.maximum === 'number' && schema.maximum <= 1) {
      const hit = numbers.find((n) => n.value === value);
      if (hit && /^-?[\d,.]+\s*(%|percent\b|per cent\b)/i.test(this.source.facts.text.slice(hit.at)))
        value /= 100;
    }
    let out = value ?? (typeof schema.default === 'number' ? schema.default : undefined);
    if (out === undefined) out = typeof schema.minimum === 'number' ? schema.minimum : 1;
    out = clamp(out, schema);
    const integer = schema.type === 'integer';
    const conformed = conformNumber(integer ? Math.round(out) : out, schema, integer);
    if (conformed === undefined) return this.unmetValue(out, name, schema, true);
    return { value: conformed, found };
  }

  private boolean(schema: Schema, name: string | undefined): Filled {
    const fromRecord = this.recordField(name, (v) => typeof v === 'boolean');
    if (typeof fromRecord === 'boolean') return { value: fromRecord, found: true };
    // An on/off switch ("enabled", "active"): "Enable dark_mode" is true, "turn off beta_search" false.
    if (
      /enable|active|^on$|toggle|state/i.test(name ?? '') ||
      /\bon or off\b/i.test(String(schema.description))
    ) {
      if (/\b(disable|deactivate|(turn|switch)(ed)? off)\b/i.test(this.lower))
        return { value: false, found: true };
      if (/\b(enable|activate|(turn|switch)(ed)? on)\b/i.test(this.lower))
        return { value: true, found: true };
    }
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
    const filled = this.readString(schema, name, required);
    if (checkValue(filled.value, schema)) return filled;
    const repaired = conformString(schema, this.source.facts, filled.value, name ?? '');
    if (repaired) return { value: repaired.value, found: filled.found || repaired.found };
    return this.unmetValue(filled.value, name, schema, required);
  }

  /**
   * A value no valid one could be made for: noted (a required tool argument becomes a question to the
   * user) and marked invalid, so an optional property is left out.
   */
  private unmetValue(value: unknown, name: string | undefined, schema: Schema, required: boolean): Filled {
    this.unmet.push(name ?? 'value');
    if (required && this.options.onlyFound && !this.missing.some((m) => m.name === name)) {
      this.missing.push({
        name: name ?? 'value',
        kind: 'generic',
        description: String(schema.description ?? describeRule(schema)),
      });
    }
    return { value, found: false, invalid: true };
  }

  private readString(
    schema: Schema,
    name: string | undefined,
    required: boolean,
  ): { value: string; found: boolean } {
    return fillString(
      {
        facts: this.source.facts,
        records: this.source.records,
        context: this.source.context,
        expressions: this.expressions,
        onlyFound: this.options.onlyFound,
        pools: this.pools,
        missing: this.missing,
        fromRecord: this.recordField(name, (v) => typeof v === 'string' && v.length > 0),
      },
      schema,
      name,
      required,
    );
  }

  private recordField(name: string | undefined, ok: (value: unknown) => boolean): unknown {
    if (!name) return undefined;
    for (const record of this.source.records ?? []) {
      if (name in record && ok(record[name])) return record[name];
    }
    return undefined;
  }
}

interface Filled {
  value: unknown;
  /** The request gave this value (not a default). */
  found: boolean;
  /** No value valid against the schema could be made. */
  invalid?: boolean;
}

/** The rule a value must follow, for the question asked when none could be made. */
function describeRule(schema: Schema): string {
  if (typeof schema.pattern === 'string') return `matching ${schema.pattern}`;
  if (typeof schema.format === 'string') return `a ${schema.format}`;
  return '';
}
