import type { Schema } from './schema-utils.js';

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
  | 'currency'
  | 'street'
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
  if (/\bcurrenc(y|ies)\b/.test(words)) return 'currency';
  if (/\bstreet\b/.test(words)) return 'street';
  if (/\b(city|cities|town|location|place|destination|origin|country|region|address)\b/.test(words))
    return 'place';
  if (/^(path|file_?path|filename|file_?name)$/.test(key) || /\bpath of the file\b/.test(words))
    return 'path';
  if (
    /(^|_)date$|^date|\bday\b|^(when|on)$/.test(key) ||
    /yyyy-mm-dd|\bdate\b/.test(description.toLowerCase())
  )
    return 'date';
  if (/(^|_)time$|^time$|^at$/.test(key) || /\bhh:mm\b|time of day/.test(description.toLowerCase()))
    return 'time';
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
