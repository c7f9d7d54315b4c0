import { truncate } from '../utils.js';

/** One tool call and what came back, as the conversation holds them. */
export interface ToolExchange {
  name: string;
  /** The call's arguments, parsed (empty when they were not JSON). */
  arguments: Record<string, unknown>;
  /** The tool message's content. */
  content: string;
}

const VERBS = new Set('get fetch lookup look find search read check query retrieve show'.split(' '));

/**
 * An assistant's reply to tool results: one sentence per call with its values and units ("The weather in
 * Paris: light rain, 14 °C, humidity 82%, wind 18 km/h."), `17*23 = 391.` for a calculation, and for a
 * failed call a plain "I could not ... : <reason>."
 */
export function describeToolResults(exchanges: ToolExchange[]): string {
  return exchanges.map(describeOne).join(' ');
}

function describeOne(exchange: ToolExchange): string {
  const subject = subjectOf(exchange);
  const lookup = subject.startsWith('The ');
  const rejected = /^The user rejected this call of .*?; it was not run\.(?: Reason: ([\s\S]*))?$/.exec(
    exchange.content.trim(),
  );
  if (rejected) {
    const reason = rejected[1]?.trim().replace(/\.$/, '');
    if (!reason || /^The user declined/i.test(reason))
      return `I did not run ${exchange.name}: you declined it.`;
    return `I did not run ${exchange.name}: it was rejected${reason ? ` (${reason})` : ''}.`;
  }
  if (/^The user declined/i.test(exchange.content.trim()))
    return `I did not run ${exchange.name}: you declined it.`;
  const failure = failureReason(exchange);
  if (failure !== undefined) {
    return lookup ? `I could not get ${lowerFirst(subject)}: ${failure}.` : `${subject} failed: ${failure}.`;
  }
  let value: unknown;
  try {
    value = JSON.parse(exchange.content);
  } catch {
    value = exchange.content;
  }
  if (isRecord(value)) {
    if ('result' in value && typeof value.expression === 'string')
      return `${value.expression} = ${formatValue(value.result)}.`;
    if (value.deleted === true) return `${subject}: deleted.`;
    // A clock reading: the local time says it all ("The current time: Tuesday, 24 November 2026 at 12:22 UTC.").
    if (typeof value.local === 'string' && /\d/.test(value.local)) return `${subject}: ${value.local}.`;
    if (typeof value.error === 'string') {
      return lookup
        ? `I could not get ${lowerFirst(subject)}: ${value.error}.`
        : `${subject} failed: ${value.error}.`;
    }
    return `${subject}: ${describeRecord(value)}.`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return `${subject}: nothing found.`;
    const labels = value.slice(0, 5).map(labelOf);
    const more = value.length > 5 ? `, and ${value.length - 5} more` : '';
    return `${subject}: ${value.length} found (${labels.join(', ')}${more}).`;
  }
  const text = String(value).trim();
  if (!text) return `${subject}: done.`;
  return `${subject}: ${truncate(text.replace(/\s+/g, ' '), 300).replace(/\.$/, '')}.`;
}

/** "The weather in Paris", "The customer 1001", "The result of calculate". */
function subjectOf({ name, arguments: args }: ToolExchange): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[_\s-]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
  const noun = words.filter((w, i) => !(i === 0 && VERBS.has(w))).join(' ');
  const values = Object.values(args)
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .map(String)
    .slice(0, 2);
  if (words.length > 0 && VERBS.has(words[0] as string) && noun) {
    const place = Object.keys(args).some((k) => /city|place|location|town|country/i.test(k));
    return `The ${noun}${values.length ? ` ${place ? 'in' : 'for'} ${values.join(', ')}` : ''}`;
  }
  return `${name}${values.length ? ` (${values.join(', ')})` : ''}`;
}

function failureReason({ name, content }: ToolExchange): string | undefined {
  const trimmed = content.trim();
  const prefixes = [`Error in ${name}: `, `Invalid arguments for ${name}: `];
  for (const prefix of prefixes)
    if (trimmed.startsWith(prefix)) return trimmed.slice(prefix.length).replace(/\.$/, '');
  if (/^(?:Error|error):\s/.test(trimmed))
    return trimmed.replace(/^(?:Error|error):\s*/, '').replace(/\.$/, '');
  if (/^(?:Tool|The tool) .* (?:timed out|was cancelled|not found)/i.test(trimmed))
    return trimmed.replace(/\.$/, '');
  return undefined;
}

const UNITS: Array<[RegExp, string, string]> = [
  [/^(.*?)(?:C|Celsius)$/, '', ' °C'],
  [/^(.*?)(?:F|Fahrenheit)$/, '', ' °F'],
  [/^(.*?)(?:Percent|Pct)$/, '', '%'],
  [/^(.*?)(?:Kph|Kmh)$/, '', ' km/h'],
  [/^(.*?)Mph$/, '', ' mph'],
  [/^(.*?)Ms$/, '', ' ms'],
  [/^(.*?)Km$/, '', ' km'],
  [/^(.*?)(?:Usd)$/, '', ' USD'],
  [/^(.*?)(?:Eur)$/, '', ' EUR'],
];

function describeRecord(record: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, raw] of Object.entries(record)) {
    if (raw === null || raw === undefined || raw === '') continue;
    let label = key;
    let unit = '';
    for (const [re, , suffix] of UNITS) {
      const m = re.exec(key);
      if (m?.[1] && typeof raw === 'number') {
        label = m[1];
        unit = suffix;
        break;
      }
    }
    const words = label
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/_/g, ' ')
      .toLowerCase();
    const value = `${formatValue(raw)}${unit}`;
    // A condition or a name reads best bare: "light rain", not "condition light rain".
    if (/^(condition|summary|status|description|name|city|text)$/.test(words) && typeof raw === 'string') {
      if (parts.length === 0 && (words === 'city' || words === 'name')) continue;
      parts.push(value);
    } else parts.push(`${words} ${value}`);
    if (parts.length >= 6) break;
  }
  return truncate(parts.join(', '), 300) || 'done';
}

function labelOf(item: unknown): string {
  if (isRecord(item)) {
    for (const key of ['name', 'title', 'filename', 'file_name', 'id']) {
      if (typeof item[key] === 'string' || typeof item[key] === 'number') return String(item[key]);
    }
    return truncate(JSON.stringify(item), 60);
  }
  return truncate(String(item), 60);
}

function formatValue(value: unknown): string {
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  if (typeof value === 'string') return value;
  return truncate(JSON.stringify(value), 120);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lowerFirst(text: string): string {
  return text.startsWith('The ') ? `the ${text.slice(4)}` : text;
}
