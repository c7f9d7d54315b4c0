/** Removes a secret from text a server sent, in every form a server may echo it in. */
export type Redact = (text: string) => string;

const MASK = '***';

/**
 * The forms of `secret` a server may echo: as is, JSON-escaped (`\/`, `\u002d`...), URL-encoded (with `%20`
 * or `+`), and base64 / base64url at each of the three byte alignments it can have inside a longer
 * encoded value (the characters that mix in neighbouring bytes are left out, so the rest is fixed).
 */
function encodedForms(secret: string): string[] {
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/')]);
  forms.add(secret.replace(/[^A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const url = encodeURIComponent(secret);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase()));
  forms.add(url.replaceAll('%20', '+'));
  const bytes = Buffer.from(secret, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // The characters whose 6 bits all come from the secret's bytes.
    const stable = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (stable.length >= 8) {
      forms.add(stable);
      forms.add(stable.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  // Longest first, so a form that contains another is masked whole.
  return [...forms].filter((form) => form.length >= 4).sort((a, b) => b.length - a.length);
}

/**
 * The one redaction every sink of server text goes through (error messages, bodies, headers, request ids,
 * stream events): each form of the key (see `encodedForms`) becomes `***`. Apply it to decoded text, and
 * before cutting the text, so no prefix of the key survives a cut.
 */
export function createRedactor(secret: string | readonly string[]): Redact {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const forms = [...new Set(secrets.filter((s) => s.length >= 4).flatMap(encodedForms))].sort(
    (a, b) => b.length - a.length,
  );
  if (forms.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  };
}

/** A copy of a parsed JSON value with every string (keys too) redacted. */
export function redactValue(value: unknown, redact: Redact, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  // Deeper than any real error body: replaced instead of walked.
  if (depth > 64) return MASK;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[redact(key)] = redactValue(item, redact, depth + 1);
    return out;
  }
  return value;
}
