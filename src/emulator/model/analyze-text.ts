import { findDates, findTimes, MONTHS, WEEKDAYS } from './find-dates.js';
import { knownCity, lowerCaseCities } from './places.js';
import { REFERENCE_TODAY } from './request-today.js';
import { STOP_WORDS } from './words.js';

/** What a message offers for arguments, each list in the order the message says it. */
export interface TextFacts {
  /** The message, trimmed of trailing punctuation. */
  text: string;
  /** The date (YYYY-MM-DD) "today" meant when the text was read: from the request, never the clock. */
  today: string;
  /** Text in double, single or curly quotes. */
  quoted: string[];
  /** Place-like spans: known cities and capitalised spans after "in", "at", "for", "from", "to"... */
  places: string[];
  /** Every capitalised span that is not a sentence's first word ("Ada", "New York"). */
  names: string[];
  /** The first word when it reads as a name ("Alice is 31"), not as a request ("Compare", "What's"). */
  leadingName?: string;
  /** Numbers that are not part of a date, a clock time or an id. */
  numbers: Array<{ value: number; at: number }>;
  /** Dates as YYYY-MM-DD. */
  dates: string[];
  /** Clock times as HH:MM (24 h). */
  times: string[];
  emails: string[];
  urls: string[];
  /** Id-like tokens: `file-abc123`, `T-1`, `#42`. */
  ids: string[];
  /** IANA zones written out (`Europe/Paris`) or UTC/GMT. */
  timeZones: string[];
  /** File names and paths (`notes.md`, `docs/guide.pdf`). */
  paths: string[];
  /** Identifiers written as code: `dark_mode`, `zephyr_docs`. */
  identifiers: string[];
  /** Currencies as ISO codes, in order; `amount` when a number stands next to it ("100 USD", "20 dollars"). */
  currencies: Array<{ code: string; amount: boolean }>;
  /** Street addresses with their house number: `221B Baker Street`. */
  streets: string[];
}

const CURRENCY_WORDS: Record<string, string> = Object.fromEntries(
  'dollar=USD dollars=USD euro=EUR euros=EUR pound=GBP pounds=GBP sterling=GBP yen=JPY franc=CHF francs=CHF yuan=CNY rupee=INR rupees=INR'
    .split(' ')
    .map((pair) => pair.split('=')),
);
const CURRENCY =
  /((?<![\d,.])\d[\d,.]*\s*)?\b(USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR|SEK|NOK|DKK|dollars?|euros?|pounds?|sterling|yen|francs?|yuan|rupees?)\b(\s*\d)?/gi;
const STREET =
  /\b\d+[A-Za-z]?\s+(?:\p{Lu}[\p{L}'-]+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Way|Drive|Dr|Place|Square|Court|Terrace)\b\.?/gu;

const NOT_NAMES = new Set([
  ...MONTHS,
  ...WEEKDAYS,
  ..."celsius fahrenheit kelvin i i'm ok okay thanks thank hi hello hey yes no compare".split(' '),
]);
// Words that often start a request; a capitalised first word is a name only when it is not one of these.
const STARTERS = new Set(
  (
    'add book calculate check compare compute convert count create delete describe explain fetch get give hello ' +
    'hey hi how list look lookup name open order please remind remove run say schedule search send show sum ' +
    'summarize tell translate update what whats where which who why write customer user ticket'
  ).split(' '),
);
const CONNECTORS = new Set(['de', 'da', 'do', 'dos', 'del', 'la', 'le', 'von', 'van', 'am', 'upon']);
const PLACE_PREPOSITIONS = new Set(
  'in at for from to near of around à en em nach aus über and vs versus between about'.split(' '),
);
const WORD_NUMBERS: Record<string, number> = Object.fromEntries(
  'one=1 two=2 three=3 four=4 five=5 six=6 seven=7 eight=8 nine=9 ten=10 eleven=11 twelve=12 twenty=20 hundred=100'
    .split(' ')
    .map((pair) => [pair.split('=')[0], Number(pair.split('=')[1])]),
);

/** Reads a message for argument values. `today` (YYYY-MM-DD) anchors "tomorrow" and weekdays. */
export function analyzeText(input: string, today = REFERENCE_TODAY): TextFacts {
  const text = input.trim().replace(/[\s.!?]+$/, '');
  const quoted = [...text.matchAll(/"([^"]+)"|“([^”]+)”|(?<![\p{L}])'([^']{2,})'(?![\p{L}])/gu)].map((m) =>
    (m[1] ?? m[2] ?? m[3] ?? '').trim(),
  );
  const emails = [...text.matchAll(/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g)].map((m) => m[0]);
  const urls = [...text.matchAll(/https?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/g)].map((m) => m[0]);
  const timeZones = [
    ...text.matchAll(/\b(?:[A-Z][a-z]+\/[A-Z][A-Za-z_]+(?:\/[A-Z][A-Za-z_]+)?|UTC|GMT)\b/g),
  ].map((m) => m[0]);
  const ids = [
    ...text.matchAll(
      /(?<![\w@/.-])(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[A-Za-z]+[-_][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*|(?:file|voice|vs|call)[-_][A-Za-z0-9]{3,}|#\d+)(?![\w@])/gi,
    ),
  ].map((m) => m[0].replace(/^#/, ''));
  const paths = [
    ...text.matchAll(/(?<![\w@/])(?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]{1,5}(?![\w@])/g),
  ]
    .map((m) => m[0])
    .filter(
      (p) =>
        !/^\d+(\.\d+)?$/.test(p) && !emails.some((e) => e.includes(p)) && !urls.some((u) => u.includes(p)),
    );

  // Spans that hold numbers which are not quantities.
  const taken: Array<[number, number]> = [];
  const take = (re: RegExp) => {
    for (const m of text.matchAll(re)) taken.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  };
  const dates = findDates(text, today, take);
  const times = findTimes(text, take);
  take(
    /(?<![\w@/.-])(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[A-Za-z]+[-_][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/gi,
  );
  take(/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?:\/\/\S+/g);
  const numbers: TextFacts['numbers'] = [];
  for (const m of text.matchAll(/(?<![\p{L}\d.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/gu)) {
    const at = m.index ?? 0;
    if (taken.some(([a, b]) => at >= a && at < b)) continue;
    numbers.push({ value: Number(m[0].replace(/,/g, '')), at });
  }
  for (const m of text.matchAll(
    /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)\b/gi,
  )) {
    numbers.push({ value: WORD_NUMBERS[m[1]?.toLowerCase() ?? ''] ?? 0, at: m.index ?? 0 });
  }
  numbers.sort((a, b) => a.at - b.at);

  const { names, places } = findNames(text);
  const facts: TextFacts = {
    text,
    today,
    quoted,
    places,
    names,
    numbers,
    dates,
    times,
    emails,
    urls,
    ids,
    timeZones,
    paths,
    identifiers: [...text.matchAll(/(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])/g)].map((m) => m[0]),
    currencies: [...text.matchAll(CURRENCY)].map((m) => ({
      code: CURRENCY_WORDS[(m[2] ?? '').toLowerCase()] ?? (m[2] ?? '').toUpperCase(),
      amount: m[1] !== undefined || m[3] !== undefined,
    })),
    streets: [...text.matchAll(STREET)].map((m) => m[0].replace(/\.$/, '')),
  };
  const first = /^\p{Lu}\p{Ll}+(?=[\s,:]|$)/u.exec(text)?.[0];
  const lowerFirst = first?.toLowerCase() ?? '';
  if (first && !STOP_WORDS.has(lowerFirst) && !NOT_NAMES.has(lowerFirst) && !STARTERS.has(lowerFirst))
    facts.leadingName = first;
  return facts;
}

function findNames(text: string): { names: string[]; places: string[] } {
  const names: string[] = [];
  const places: Array<{ name: string; at: number }> = [];
  const tokens = [...text.matchAll(/\S+/g)].map((m) => ({ raw: m[0], at: m.index ?? 0 }));
  let sentenceStart = true;
  let run: Array<{ word: string; at: number }> = [];
  let before = '';
  let lastWasPlace = false;
  const flush = () => {
    while (run.length > 0 && CONNECTORS.has(run.at(-1)?.word.toLowerCase() ?? '')) run.pop();
    if (run.length === 0) return;
    const name = run.map((r) => r.word).join(' ');
    const at = run[0]?.at ?? 0;
    names.push(name);
    const place =
      Boolean(knownCity(name)) || PLACE_PREPOSITIONS.has(before) || (before === 'and' && lastWasPlace);
    if (place && (before !== 'and' || lastWasPlace || knownCity(name))) places.push({ name, at });
    lastWasPlace = place;
    run = [];
  };
  for (const { raw, at } of tokens) {
    const word = raw.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '').replace(/['’]s$/, '');
    const lower = word.toLowerCase();
    const capital = word.length > 1 && /^\p{Lu}/u.test(word) && !/^\p{Lu}+$/u.test(word.slice(0, 4));
    const connector = run.length > 0 && CONNECTORS.has(lower);
    const accepted =
      connector ||
      (capital &&
        !STOP_WORDS.has(lower) &&
        !NOT_NAMES.has(lower) &&
        (!sentenceStart || Boolean(knownCity(word)) || run.length > 0));
    if (accepted) run.push({ word, at });
    else {
      flush();
      if (word) before = lower;
    }
    if (/[,;:.!?)]$/.test(raw)) {
      flush();
      before = ',';
    }
    sentenceStart = /[.!?]$/.test(raw) || (sentenceStart && !word);
  }
  flush();
  for (const city of lowerCaseCities(text)) {
    if (!places.some((p) => p.at <= city.at && city.at < p.at + p.name.length)) places.push(city);
  }
  places.sort((a, b) => a.at - b.at);
  return { names, places: [...new Set(places.map((p) => knownCity(p.name) ?? p.name))] };
}
