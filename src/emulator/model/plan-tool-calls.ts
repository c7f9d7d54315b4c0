import type { FunctionToolDefinition } from '../../api/types/chat.js';
import { analyzeText, type TextFacts } from './analyze-text.js';
import { extractArithmetics } from './extract-arithmetic.js';
import { SchemaFiller } from './fill-schema.js';
import { paramKind } from './param-kind.js';
import { contentWords, withRelatedWords } from './words.js';

/** One call the model decided to make. */
export interface PlannedCall {
  tool: FunctionToolDefinition;
  arguments: Record<string, unknown>;
}

/** The model's decision for a user turn: calls to make, or a question when a needed value is missing. */
export interface ToolPlan {
  calls: PlannedCall[];
  /** Asked instead of calling a tool whose required value (a city, an id) the request does not give. */
  question?: string;
}

type Schema = Record<string, unknown>;

/**
 * Decides which function tools a request asks for and with what arguments. The request is cut into
 * clauses ("What's the weather in Paris, and how much is 2+2*3?" has two); each clause picks the tools whose
 * names it names (a typo of one letter allowed), then tools for arithmetic it contains, then, when nothing
 * else matched, the tool whose description and parameter descriptions share the most distinctive words.
 * A clause naming several values for a tool's main parameter ("London and Berlin") becomes one call each.
 */
export function planToolCalls(tools: FunctionToolDefinition[], text: string, today?: string): ToolPlan {
  const clauses = splitClauses(text);
  const whole = analyzeText(text, today);
  const nameIdf = idf(tools.map((t) => contentWords(t.function.name)));
  const descIdf = idf(tools.map((t) => descriptionWords(t)));
  let picks = clauses.map((clause) => pickTools(tools, clause, nameIdf, descIdf, today));
  // Descriptions speak only when no clause names a tool: "rounding down" must not call a tool twice.
  if (picks.some((p) => !p.byDescription && p.tools.length > 0))
    picks = picks.map((p) => (p.byDescription ? { tools: [], byDescription: true } : p));
  const picked = picks.map((p) => p.tools);
  // A guess from descriptions alone never turns into a question back to the user.
  const guessed = new Set(picks.filter((p) => p.byDescription).flatMap((p) => p.tools));
  // A clause without tools ("..., London and Berlin") belongs to the nearest clause before it that has some.
  const segments: Array<{ tools: FunctionToolDefinition[]; text: string }> = [];
  clauses.forEach((clause, i) => {
    const chosen = picked[i] ?? [];
    const last = segments.at(-1);
    if (chosen.length === 0 && last) last.text = `${last.text}, ${clause}`;
    else segments.push({ tools: chosen, text: clause });
  });
  if (segments.length > 1 && segments[0]?.tools.length === 0) {
    const [first, second] = segments as [(typeof segments)[0], (typeof segments)[0]];
    second.text = `${first.text}, ${second.text}`;
    segments.shift();
  }
  const calls: PlannedCall[] = [];
  const missing: string[] = [];
  const segmentFacts = segments.map((s) => analyzeText(s.text, today));
  segments.forEach((segment, i) => {
    const own = segmentFacts[i] as TextFacts;
    const others = segmentFacts.filter((_, j) => j !== i);
    const facts = withFallback(own, whole, others);
    for (const tool of segment.tools) {
      const made = callsFor(tool, facts, own);
      if (made.missing && !guessed.has(tool)) missing.push(made.missing);
      calls.push(...made.calls);
    }
  });
  if (calls.length === 0 && missing.length > 0) return { calls, question: missing[0] as string };
  // A request that says the same thing twice ("Order 2 pizzas. Yes, order 2 pizzas") is one call: a
  // repeated call with the same arguments would repeat its side effect.
  const seen = new Set<string>();
  return {
    calls: calls.filter((call) => {
      const key = `${call.tool.function.name}\u0000${JSON.stringify(call.arguments)}`;
      return !seen.has(key) && Boolean(seen.add(key));
    }),
  };
}

function callsFor(
  tool: FunctionToolDefinition,
  facts: TextFacts,
  own: TextFacts,
): { calls: PlannedCall[]; missing?: string } {
  const schema = (tool.function.parameters ?? { type: 'object' }) as Schema;
  const context = `${tool.function.name} ${tool.function.description ?? ''}`;
  // The main parameter: the first required string naming a place, an expression or an id.
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  let variants: TextFacts[] = [facts];
  for (const [key, prop] of Object.entries(properties)) {
    if (!required.has(key) || prop.enum) continue;
    // "Delete records 17 and 18": an integer id named twice is two calls, when it is the only number asked.
    if (prop.type === 'integer' && paramKind(key, { ...prop, type: 'string' }) === 'id') {
      const numeric = Object.values(properties).filter((p) => p.type === 'integer' || p.type === 'number');
      if (own.numbers.length > 1 && numeric.length === 1)
        variants = own.numbers.map((n) => ({ ...facts, numbers: [n] }));
      break;
    }
    if (prop.type !== 'string') continue;
    const kind = paramKind(key, prop);
    if (kind === 'place' && own.places.length > 1)
      variants = own.places.map((p) => ({ ...facts, places: [p] }));
    if (kind === 'expression') {
      const expressions = extractArithmetics(own.text);
      if (expressions.length > 1) variants = expressions.map((e) => ({ ...facts, text: e }));
    }
    // Two ids for a tool taking two ids ("link X to Y") are one call, not one call each.
    const idParams = Object.entries(properties).filter(
      ([k, p]) => required.has(k) && paramKind(k, p) === 'id',
    );
    if (kind === 'id' && own.ids.length > 1 && idParams.length === 1)
      variants = own.ids.map((id) => ({ ...facts, ids: [id] }));
    if (variants.length > 1 || kind === 'place' || kind === 'expression' || kind === 'id') break;
  }
  const calls: PlannedCall[] = [];
  let missing: string | undefined;
  for (const variant of variants) {
    const filler = new SchemaFiller({ facts: variant, context }, { onlyFound: true });
    const args = filler.fill(schema) as Record<string, unknown>;
    const gap = filler.missing[0];
    if (gap) {
      missing = question(tool, gap.name, gap.kind, gap.description);
      continue;
    }
    calls.push({ tool, arguments: args });
  }
  return missing && calls.length === 0 ? { calls, missing } : { calls };
}

function question(tool: FunctionToolDefinition, name: string, kind: string, description: string): string {
  const what =
    kind === 'place'
      ? 'Which city (or place)'
      : kind === 'expression'
        ? 'Which calculation'
        : `Which ${name.replace(/_/g, ' ')}`;
  const hint = description ? ` (${description.replace(/\.$/, '')})` : '';
  return `${what} do you mean? I need the ${name}${hint} to use ${tool.function.name}.`;
}

/** Splits a request into clauses at sentence ends, semicolons, commas and "and"/"then" before a new question. */
export function splitClauses(text: string): string[] {
  return text
    .split(
      /[.?!;]+\s+|,\s+(?:and\s+|then\s+|also\s+)*|\s+(?:and|then|also)\s+(?=(?:also\s+)?(?:what|what's|whats|how|how's|tell|give|show|get|check|calculate|compute|convert|is|are|do|does|can|could|please|find|look|search|list|create|add|delete|remove|remind|book|send|set|read|upload)\b)/i,
    )
    .map((c) => c.trim())
    .filter(Boolean);
}

function pickTools(
  tools: FunctionToolDefinition[],
  clause: string,
  nameIdf: Map<string, number>,
  descIdf: Map<string, number>,
  today?: string,
): { tools: FunctionToolDefinition[]; byDescription: boolean } {
  const arithmetic = extractArithmetics(clause).length > 0;
  const facts = analyzeText(clause, today);
  // In "12 times 7", "times" is an operator, not a tool's "time"; "docs" in "./docs/guide.pdf" names no tool.
  let plain = arithmetic ? clause.replace(ARITHMETIC_WORDS, ' ') : clause;
  for (const value of [...facts.paths, ...facts.urls, ...facts.emails, ...facts.ids])
    plain = plain.split(value).join(' ');
  const words = withRelatedWords(contentWords(plain));
  // Two currencies ("How many euros is 50 GBP?") ask for a conversion; one ("84 dollars") does not.
  if (new Set(facts.currencies.map((c) => c.code)).size > 1) words.add('currency').add('convert');
  const chosen: FunctionToolDefinition[] = [];
  // Names first, greedily: the tool explaining the most distinctive words, then the next one on what is left.
  const left = new Set(words);
  for (;;) {
    let best: { tool: FunctionToolDefinition; score: number; matched: string[] } | undefined;
    for (const tool of tools) {
      if (chosen.includes(tool)) continue;
      const own = contentWords(tool.function.name);
      const matched = own.filter((w) => [...left].some((m) => similar(m, w)));
      if (matched.length === 0) continue;
      const fillable = isFillable(tool, facts) ? 0.05 : 0;
      const score =
        matched.reduce((sum, w) => sum + (nameIdf.get(w) ?? 0), 0) +
        matched.length / own.length / 100 +
        fillable;
      if (!best || score > best.score) best = { tool, score, matched };
    }
    // The first tool may rest on a shared word ("file"); a further one must explain a distinctive word.
    if (!best || best.score < (chosen.length === 0 ? 0.12 : 0.5)) break;
    chosen.push(best.tool);
    for (const w of [...left]) if (best.matched.some((m) => similar(w, m))) left.delete(w);
  }
  if (arithmetic) {
    const calculator = tools.find((t) => !chosen.includes(t) && isCalculator(t));
    if (calculator) chosen.push(calculator);
  }
  if (chosen.length > 0) return { tools: chosen, byDescription: false };
  let best: { tool: FunctionToolDefinition; score: number } | undefined;
  for (const tool of tools) {
    const own = new Set(descriptionWords(tool));
    const score = [...words].filter((w) => own.has(w)).reduce((sum, w) => sum + (descIdf.get(w) ?? 0), 0);
    if (score > 0 && (!best || score > best.score)) best = { tool, score };
  }
  return { tools: best && best.score >= 0.3 ? [best.tool] : [], byDescription: true };
}

const ARITHMETIC_WORDS =
  /\b(times|plus|minus|divided|multiplied|squared|cubed|percent|power|over|modulo|mod|root)\b/gi;

function isFillable(tool: FunctionToolDefinition, facts: TextFacts): boolean {
  const filler = new SchemaFiller({ facts }, { onlyFound: true });
  filler.fill((tool.function.parameters ?? { type: 'object' }) as Schema);
  return filler.missing.length === 0;
}

function isCalculator(tool: FunctionToolDefinition): boolean {
  const text = `${tool.function.name} ${tool.function.description ?? ''}`.toLowerCase();
  if (/calculat|arithmetic|\bmath|\bcompute|expression/.test(text)) return true;
  const properties = (tool.function.parameters?.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties).some(([k, p]) => paramKind(k, p) === 'expression');
}

function descriptionWords(tool: FunctionToolDefinition): string[] {
  const properties = (tool.function.parameters?.properties ?? {}) as Record<string, Schema>;
  const parts = [tool.function.description ?? ''];
  for (const [key, prop] of Object.entries(properties)) {
    parts.push(key, typeof prop.description === 'string' ? prop.description : '');
  }
  return contentWords(parts.join(' '));
}

function idf(docs: string[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const doc of docs) for (const word of new Set(doc)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return new Map([...counts].map(([w, n]) => [w, 1 / n]));
}

/** Equal, or one edit apart for words of five letters or more ("waether", "wether"). */
function similar(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.min(a.length, b.length) < 5 || Math.abs(a.length - b.length) > 1) return false;
  // Past the common prefix, one substitution, insertion, deletion or swap of neighbours must make them equal.
  let i = 0;
  while (a[i] === b[i]) i++;
  const rest = (x: string, skip: number) => x.slice(i + skip);
  return (
    rest(a, 1) === rest(b, 1) ||
    rest(a, 1) === rest(b, 0) ||
    rest(a, 0) === rest(b, 1) ||
    (a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a, 2) === rest(b, 2))
  );
}

/** A segment's facts, borrowing from the whole request what the segment lacks and no other segment claims. */
function withFallback(own: TextFacts, whole: TextFacts, others: TextFacts[]): TextFacts {
  const out: TextFacts = { ...own };
  const pools = [
    'places',
    'names',
    'ids',
    'dates',
    'times',
    'emails',
    'urls',
    'quoted',
    'timeZones',
  ] as const;
  for (const pool of pools) {
    if (own[pool].length > 0) continue;
    // "what time is it there?" refers back to a place another clause named.
    const claimed = new Set(/\b(there|same|both)\b/i.test(own.text) ? [] : others.flatMap((o) => o[pool]));
    out[pool] = whole[pool].filter((v) => !claimed.has(v));
  }
  return out;
}
