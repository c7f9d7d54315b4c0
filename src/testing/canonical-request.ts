import { createHash } from 'node:crypto';

/** A request as a recording keys it: no credentials, no multipart boundary, JSON with sorted keys. */
export interface CanonicalRequest {
  method: string;
  /** Path with the query string, as sent. */
  path: string;
  /** The parsed JSON body, the multipart fields (files as name, type, size and sha256), or null. */
  body: unknown;
}

/** JSON of `value` with object keys sorted at every level, so the same request always reads the same. */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The key two equal requests share. */
export function requestKey(request: CanonicalRequest): string {
  return `${request.method} ${request.path} ${canonicalJson(request.body)}`;
}

/**
 * The body as a recording shows it: JSON parsed (so it reads and diffs as JSON), a multipart form as its
 * fields with each file's name, type, size and hash (its boundary is random), anything else as text.
 */
export async function canonicalBody(body: unknown): Promise<unknown> {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }
  if (isFormData(body)) {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of body.entries()) {
      if (typeof value === 'string') fields[name] = value;
      else {
        const bytes = Buffer.from(await value.arrayBuffer());
        fields[name] = {
          file: (value as { name?: string }).name ?? 'blob',
          type: value.type,
          bytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        };
      }
    }
    return { multipart: fields };
  }
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return String(body);
}

interface FormDataLike {
  entries(): IterableIterator<[string, string | Blob]>;
}

function isFormData(body: unknown): body is FormDataLike {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { entries?: unknown }).entries === 'function' &&
    Object.prototype.toString.call(body) === '[object FormData]'
  );
}

/**
 * The lines where two requests differ, `-` for the recorded one and `+` for the new one, with the lines
 * around them: what a person needs to see why a request has no recording.
 */
export function describeDifference(recorded: CanonicalRequest, actual: CanonicalRequest): string {
  const a = canonicalJson(recorded, 2).split('\n');
  const b = canonicalJson(actual, 2).split('\n');
  const out: string[] = [];
  const max = Math.max(a.length, b.length);
  for (let i = 0; i < max; i++) {
    if (a[i] === b[i]) continue;
    if (out.length > 0 && out.length >= 20) {
      out.push('  ...');
      break;
    }
    if (a[i] !== undefined) out.push(`- ${a[i]}`);
    if (b[i] !== undefined) out.push(`+ ${b[i]}`);
  }
  return out.join('\n');
}

/** How unlike two requests are: the number of differing lines of their canonical JSON (0 when equal). */
export function distance(recorded: CanonicalRequest, actual: CanonicalRequest): number {
  const a = canonicalJson(recorded, 2).split('\n');
  const b = new Set(canonicalJson(actual, 2).split('\n'));
  const shared = a.filter((line) => b.has(line)).length;
  return a.length + b.size - 2 * shared + (recorded.path === actual.path ? 0 : 1000);
}
