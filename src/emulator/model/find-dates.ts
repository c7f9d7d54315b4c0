// Dates and times of day in a message, for the emulator's argument filling.

/** Month names, January first (a date's month is its index plus one). */
export const MONTHS =
  'january february march april may june july august september october november december'.split(' ');
/** Weekday names, Sunday first, as `Date.getUTCDay()` counts. */
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function addDays(iso: string, days: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const MONTH = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`;
/** "3rd of March 2026", "3 mar": built once from the month names (the text is analysed several times a request). */
const DAY_MONTH = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b(?:,?\\s+(\\d{4}))?`,
  'gi',
);
/** "March 3rd, 2026", "mar. 3". */
const MONTH_DAY = new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4}))?`, 'gi');
/** "on friday", "next monday". */
const ON_WEEKDAY = new RegExp(`\\b(?:on|next|this)\\s+(${WEEKDAYS.join('|')})\\b`, 'gi');

/**
 * Dates a text names, as YYYY-MM-DD in the order it names them: ISO dates, "3rd of March", "March 3",
 * today/tomorrow/yesterday and weekdays, anchored on `today`. `take` marks each match as not a quantity.
 */
export function findDates(text: string, today: string, take: (re: RegExp) => void): string[] {
  const found: Array<{ at: number; value: string }> = [];
  const year = Number(today.slice(0, 4));
  const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
  const patterns: Array<[RegExp, (m: RegExpMatchArray) => string | undefined]> = [
    [/\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, (m) => `${m[1]}-${pad(Number(m[2]))}-${pad(Number(m[3]))}`],
    [DAY_MONTH, (m) => `${m[3] ?? year}-${pad(monthIndex(m[2] ?? '') + 1)}-${pad(Number(m[1]))}`],
    [MONTH_DAY, (m) => `${m[3] ?? year}-${pad(monthIndex(m[1] ?? '') + 1)}-${pad(Number(m[2]))}`],
    [/\b(today|tonight)\b/gi, () => today],
    [/\btomorrow\b/gi, () => addDays(today, 1)],
    [/\byesterday\b/gi, () => addDays(today, -1)],
    [
      ON_WEEKDAY,
      (m) => {
        const want = WEEKDAYS.indexOf((m[1] ?? '').toLowerCase());
        const now = new Date(`${today}T00:00:00Z`).getUTCDay();
        return addDays(today, (want - now + 7) % 7 || 7);
      },
    ],
  ];
  for (const [re, value] of patterns) {
    for (const m of text.matchAll(re)) {
      const at = m.index ?? 0;
      if (found.some((f) => f.at === at)) continue;
      const v = value(m);
      if (v && !v.includes('-00-')) found.push({ at, value: v });
    }
    take(re);
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.value);
}

/** Times of day a text names, as HH:MM in order ("3pm", "14:30", "noon"); `take` marks them as not quantities. */
export function findTimes(text: string, take: (re: RegExp) => void): string[] {
  const found: Array<{ at: number; value: string }> = [];
  const ampm = /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)/gi;
  for (const m of text.matchAll(ampm)) {
    let hour = Number(m[1]) % 12;
    if ((m[3] ?? '').toLowerCase().startsWith('p')) hour += 12;
    found.push({ at: m.index ?? 0, value: `${pad(hour)}:${m[2] ?? '00'}` });
  }
  take(ampm);
  const clock = /\b([01]?\d|2[0-3]):([0-5]\d)\b(?!\s*(?:am|pm))/gi;
  for (const m of text.matchAll(clock))
    found.push({ at: m.index ?? 0, value: `${pad(Number(m[1]))}:${m[2]}` });
  take(clock);
  for (const m of text.matchAll(/\b(noon|midday|midnight)\b/gi))
    found.push({ at: m.index ?? 0, value: (m[1] ?? '').toLowerCase() === 'midnight' ? '00:00' : '12:00' });
  return found.sort((a, b) => a.at - b.at).map((f) => f.value);
}
