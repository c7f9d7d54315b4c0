/**
 * True when `shown` carries `apiKey` or its first 10 characters, as is or in any form a server may encode
 * it in: JSON-escaped, URL- or form-encoded, base64 or base64url at any alignment.
 */
export function leaksKey(shown: string, apiKey: string): boolean {
  const decoded = [shown, shown.replaceAll('\\/', '/'), shown.replaceAll('+', ' ')];
  try {
    decoded.push(decodeURIComponent(shown));
  } catch {
    decoded.push(shown.replace(/%2F/gi, '/').replace(/%2B/gi, '+'));
  }
  for (const run of shown.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++) {
      decoded.push(Buffer.from(run.slice(skip), 'base64').toString('latin1'));
      decoded.push(Buffer.from(run.slice(skip), 'base64url').toString('latin1'));
    }
  }
  const prefix = apiKey.slice(0, 10);
  return decoded.some((text) => text.includes(prefix));
}
