import { errorBody, invalidParams } from './errors.js';
import { countChatPromptTokens } from './tokenize.js';
import type { EmulatorFault, EmulatorRateLimit } from './types.js';

/**
 * The budget of a `rateLimit` fault: a sliding window over the admitted requests (and their prompt
 * tokens, counted as the emulator counts them). A request beyond the budget is answered 429 with the
 * wait until enough of the window has passed, as `Retry-After` (seconds, rounded up) and `retry-after-ms`.
 */
export class RateLimitWindow {
  readonly #requests: number;
  readonly #tokens: number;
  readonly #windowMs: number;
  /** Admitted requests, oldest first: when and how many tokens. */
  readonly #admitted: Array<{ at: number; tokens: number }> = [];
  #tokensInWindow = 0;

  constructor({ requests, tokens, windowMs = 60_000 }: EmulatorRateLimit) {
    this.#requests = requests ?? Number.POSITIVE_INFINITY;
    this.#tokens = tokens ?? Number.POSITIVE_INFINITY;
    this.#windowMs = windowMs;
  }

  /** Admits the request (answers `undefined`) or answers the 429 fault to reply with. */
  admit(body: unknown, now = Date.now()): EmulatorFault | undefined {
    while (this.#admitted.length > 0 && this.#admitted[0]!.at <= now - this.#windowMs) {
      this.#tokensInWindow -= this.#admitted.shift()!.tokens;
    }
    const tokens = promptTokensOf(body);
    // A request larger than the whole token budget is let through when the window is empty, or it never could be.
    const overTokens = this.#tokensInWindow + tokens > this.#tokens && this.#admitted.length > 0;
    if (this.#admitted.length < this.#requests && !overTokens) {
      this.#admitted.push({ at: now, tokens });
      this.#tokensInWindow += tokens;
      return undefined;
    }
    const waitMs = Math.max(1, this.#waitUntilFits(tokens, now));
    return {
      status: 429,
      headers: { 'Retry-After': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) },
      body: errorBody('Rate limit reached for requests; wait and retry', 'rate_limit_exceeded'),
    };
  }

  /** Milliseconds until the oldest admitted requests leave the window and this one fits. */
  #waitUntilFits(tokens: number, now: number): number {
    let count = this.#admitted.length;
    let used = this.#tokensInWindow;
    for (const entry of this.#admitted) {
      if (count < this.#requests && (used + tokens <= this.#tokens || count === 0)) break;
      count -= 1;
      used -= entry.tokens;
      const leaves = entry.at + this.#windowMs - now;
      if (count < this.#requests && (used + tokens <= this.#tokens || count === 0)) return leaves;
    }
    return this.#windowMs;
  }
}

/** Rejects a `rateLimit` whose budgets or window are not positive numbers. */
export function checkRateLimit(rateLimit: EmulatorRateLimit, where: string): void {
  if (typeof rateLimit !== 'object' || rateLimit === null) throw invalidParams(`${where}: must be an object`);
  for (const key of ['requests', 'tokens', 'windowMs'] as const) {
    const value = rateLimit[key];
    if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
      throw invalidParams(`${where}.${key}: must be a positive number`);
    }
  }
}

function promptTokensOf(body: unknown): number {
  const { messages, tools } = (body ?? {}) as { messages?: unknown; tools?: unknown };
  if (!Array.isArray(messages)) return 0;
  try {
    return countChatPromptTokens(messages, Array.isArray(tools) ? tools : undefined);
  } catch {
    // Garbage is refused by the route's validation; it costs a request here, not tokens.
    return 0;
  }
}
