/** Longest wait the service may ask for with `Retry-After`/`retry-after-ms`; longer asks are capped. */
export const maxServerRetryDelay = 60_000;
/** First backoff step, doubled per retry. */
export const initialRetryDelay = 500;
/** Longest computed backoff step. */
export const maxBackoffDelay = 8_000;

/**
 * The wait the server asked for, in ms: `retry-after-ms` (ms), else `Retry-After` as seconds or an HTTP date.
 * `undefined` when absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined>,
  now: number = Date.now(),
): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers['retry-after']?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff for retry number `retryIndex` (0 = first retry): 0.5 s * 2^n, capped, minus up to 25 % jitter. */
export function computeBackoffDelay(retryIndex: number, random: () => number = Math.random): number {
  const base = Math.min(initialRetryDelay * 2 ** retryIndex, maxBackoffDelay);
  return Math.round(base * (1 - random() * 0.25));
}

/**
 * The wait before retry `retryIndex`: the server's ask when it gave one (no jitter: it said when),
 * capped at {@link maxServerRetryDelay}; otherwise {@link computeBackoffDelay}.
 */
export function computeRetryDelay({
  retryIndex,
  headers = {},
  now = Date.now(),
  random = Math.random,
}: {
  retryIndex: number;
  headers?: Record<string, string | undefined>;
  now?: number;
  random?: () => number;
}): number {
  const asked = parseRetryAfter(headers, now);
  if (asked !== undefined) return Math.min(asked, maxServerRetryDelay);
  return computeBackoffDelay(retryIndex, random);
}
