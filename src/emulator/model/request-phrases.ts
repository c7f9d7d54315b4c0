import { contentWords } from './words.js';

/** `called docs`, `named "Q3 report"`: the name a request gives. */
export function calledName(text: string): string | undefined {
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
