/** Replaces every occurrence of `secret` in `text` with `***` (a server may echo the key in an error). */
export function redactSecret(text: string, secret: string): string {
  return secret.length >= 4 && text.includes(secret) ? text.split(secret).join('***') : text;
}
