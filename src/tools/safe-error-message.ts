const MAX_LENGTH = 2_000;

// Credentials that an error message from a library or an HTTP client may carry.
const SECRET_PATTERNS: RegExp[] = [
  /(bearer\s+)[^\s"',;]+/gi,
  /((?:api[_-]?key|token|secret|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
  /\b(sk-)[A-Za-z0-9_-]{8,}/g,
];

/** The model-visible text of an error: its message only (never the stack), credentials masked, length capped. */
export function safeErrorMessage(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === 'string') text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  for (const pattern of SECRET_PATTERNS) text = text.replace(pattern, '$1[redacted]');
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH)}…` : text;
}
