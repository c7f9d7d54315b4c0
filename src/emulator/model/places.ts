import { escapeRegExp } from './text-match.js';

/** Well-known cities (and a few names other languages give them) with their IANA time zones. */
const CITIES: Record<string, string> = {
  Amsterdam: 'Europe/Amsterdam',
  Athens: 'Europe/Athens',
  Auckland: 'Pacific/Auckland',
  Bangkok: 'Asia/Bangkok',
  Barcelona: 'Europe/Madrid',
  Beijing: 'Asia/Shanghai',
  Berlin: 'Europe/Berlin',
  Bogotá: 'America/Bogota',
  Boston: 'America/New_York',
  Brussels: 'Europe/Brussels',
  'Buenos Aires': 'America/Argentina/Buenos_Aires',
  Cairo: 'Africa/Cairo',
  'Cape Town': 'Africa/Johannesburg',
  Chicago: 'America/Chicago',
  Copenhagen: 'Europe/Copenhagen',
  Delhi: 'Asia/Kolkata',
  Dubai: 'Asia/Dubai',
  Dublin: 'Europe/Dublin',
  Geneva: 'Europe/Zurich',
  Helsinki: 'Europe/Helsinki',
  'Hong Kong': 'Asia/Hong_Kong',
  Istanbul: 'Europe/Istanbul',
  Jakarta: 'Asia/Jakarta',
  Köln: 'Europe/Berlin',
  Cologne: 'Europe/Berlin',
  Lagos: 'Africa/Lagos',
  Lima: 'America/Lima',
  Lisbon: 'Europe/Lisbon',
  Lisboa: 'Europe/Lisbon',
  London: 'Europe/London',
  Londres: 'Europe/London',
  'Los Angeles': 'America/Los_Angeles',
  Madrid: 'Europe/Madrid',
  Melbourne: 'Australia/Melbourne',
  'Mexico City': 'America/Mexico_City',
  Milan: 'Europe/Rome',
  Montreal: 'America/Toronto',
  Moscow: 'Europe/Moscow',
  Mumbai: 'Asia/Kolkata',
  Munich: 'Europe/Berlin',
  München: 'Europe/Berlin',
  Nairobi: 'Africa/Nairobi',
  'New York': 'America/New_York',
  Oslo: 'Europe/Oslo',
  Paris: 'Europe/Paris',
  Prague: 'Europe/Prague',
  Reykjavik: 'Atlantic/Reykjavik',
  'Rio de Janeiro': 'America/Sao_Paulo',
  Roma: 'Europe/Rome',
  Rome: 'Europe/Rome',
  'San Francisco': 'America/Los_Angeles',
  'San José': 'America/Costa_Rica',
  'São Paulo': 'America/Sao_Paulo',
  Seattle: 'America/Los_Angeles',
  Seoul: 'Asia/Seoul',
  Shanghai: 'Asia/Shanghai',
  Singapore: 'Asia/Singapore',
  Stockholm: 'Europe/Stockholm',
  Sydney: 'Australia/Sydney',
  Tokio: 'Asia/Tokyo',
  Tokyo: 'Asia/Tokyo',
  Toronto: 'America/Toronto',
  Vancouver: 'America/Vancouver',
  Vienna: 'Europe/Vienna',
  Warsaw: 'Europe/Warsaw',
  Wien: 'Europe/Vienna',
  Zurich: 'Europe/Zurich',
  Zürich: 'Europe/Zurich',
};

const BY_LOWER = new Map(Object.keys(CITIES).map((name) => [fold(name), name]));

/** Each lower-cased city as a whole-word pattern, compiled once (a request analyses several texts). */
const LOWER_PATTERNS = [...BY_LOWER].map(([key, name]) => ({
  pattern: new RegExp(`(?<![\\p{L}])${escapeRegExp(key)}(?![\\p{L}])`, 'gu'),
  name,
}));

function fold(text: string): string {
  return text.toLowerCase();
}

/** The known city a span names (any case), spelled as the table spells it. */
export function knownCity(span: string): string | undefined {
  return BY_LOWER.get(fold(span.trim()));
}

/** IANA time zone of a known city. */
export function timeZoneOfCity(city: string): string | undefined {
  const known = knownCity(city);
  return known ? CITIES[known] : undefined;
}

/** Known cities written in lower case in a message ("weather in paris"), with their offsets. */
export function lowerCaseCities(text: string): Array<{ name: string; at: number }> {
  const out: Array<{ name: string; at: number }> = [];
  const lower = fold(text);
  for (const { pattern, name } of LOWER_PATTERNS) {
    for (const m of lower.matchAll(pattern)) out.push({ name, at: m.index ?? 0 });
  }
  return out;
}
