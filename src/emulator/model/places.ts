import { escapeRegExp } from './text-match.js';

/** Well-known cities (and a few names other languages give them) by their IANA time zones. */
const CITIES: Record<string, string> = Object.fromEntries(
  (
    'Europe/Amsterdam=Amsterdam;Europe/Athens=Athens;Pacific/Auckland=Auckland;Asia/Bangkok=Bangkok;' +
    'Europe/Madrid=Barcelona,Madrid;Asia/Shanghai=Beijing,Shanghai;' +
    'Europe/Berlin=Berlin,Köln,Cologne,Munich,München;America/Bogota=Bogotá;' +
    'America/New_York=Boston,New York;Europe/Brussels=Brussels;' +
    'America/Argentina/Buenos_Aires=Buenos Aires;Africa/Cairo=Cairo;Africa/Johannesburg=Cape Town;' +
    'America/Chicago=Chicago;Europe/Copenhagen=Copenhagen;Asia/Kolkata=Delhi,Mumbai;Asia/Dubai=Dubai;' +
    'Europe/Dublin=Dublin;Europe/Zurich=Geneva,Zurich,Zürich;Europe/Helsinki=Helsinki;' +
    'Asia/Hong_Kong=Hong Kong;Europe/Istanbul=Istanbul;Asia/Jakarta=Jakarta;Africa/Lagos=Lagos;' +
    'America/Lima=Lima;Europe/Lisbon=Lisbon,Lisboa;Europe/London=London,Londres;' +
    'America/Los_Angeles=Los Angeles,San Francisco,Seattle;Australia/Melbourne=Melbourne;' +
    'America/Mexico_City=Mexico City;Europe/Rome=Milan,Roma,Rome;America/Toronto=Montreal,Toronto;' +
    'Europe/Moscow=Moscow;Africa/Nairobi=Nairobi;Europe/Oslo=Oslo;Europe/Paris=Paris;' +
    'Europe/Prague=Prague;Atlantic/Reykjavik=Reykjavik;America/Sao_Paulo=Rio de Janeiro,São Paulo;' +
    'America/Costa_Rica=San José;Asia/Seoul=Seoul;Asia/Singapore=Singapore;Europe/Stockholm=Stockholm;' +
    'Australia/Sydney=Sydney;Asia/Tokyo=Tokio,Tokyo;America/Vancouver=Vancouver;' +
    'Europe/Vienna=Vienna,Wien;Europe/Warsaw=Warsaw'
  )
    .split(';')
    .flatMap((entry) => {
      const [zone = '', cities = ''] = entry.split('=');
      return cities.split(',').map((city) => [city, zone]);
    }),
);

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
