import { APIError, RateLimitError } from '../core/errors.js';
import { parseRetryAfter } from '../transport/retry-timing.js';
import type { RetryInfo } from '../transport/send-with-retry.js';

// When each part of a run happened, kept in the run's state so that every durable run (library, queue
// worker, web chat) carries it to the run inspector. All times are epoch milliseconds; every field is
// optional in the saved state, so states written before it existed read as runs without times.

/** One failed attempt of a model request that the client retried. */
export interface StepRetry {
  /** When the failed attempt was answered. */
  at: number;
  /** Number of the attempt that follows (2 for the first retry). */
  attempt: number;
  /** The wait before that attempt, in ms. */
  delayMs: number;
  /** The failed attempt's HTTP status, when it had one. */
  status?: number;
  /** True when the service rate-limited the attempt (429, or 503 with a server-given wait). */
  rateLimited: boolean;
  /** The model the attempt asked. */
  model: string;
}

/** A model passed over for a fallback within the step (`AgentStep.fallback` says which and why). */
export interface StepFallbackMove {
  /** When the model failed. */
  at: number;
  /** The model that failed. */
  from: string;
  /** The model asked next. */
  to: string;
  /** Why (`status 429`, `status 503`, `timeout`). */
  reason: string;
}

/** When a step's model request was made, sent, answered and finished, with its retries and fallbacks. */
export interface StepTiming {
  /** When the loop asked for the model. */
  requestedAt: number;
  /** When a shared request budget (a queue's rate limits) let the request go; absent without one. */
  sentAt?: number;
  /** When the first streamed piece (text, reasoning, a tool call) arrived; absent when nobody observed the stream. */
  firstTokenAt?: number;
  /** When the answer was complete. */
  doneAt: number;
  /** Attempts the client retried (rate-limit waits included), in order. */
  retries?: StepRetry[];
  /** Models passed over for a fallback, in order. */
  fallbacks?: StepFallbackMove[];
}

/** A stored run taken up again from its checkpoint (a resume, or another worker's takeover). */
export interface RunResume {
  /** When it was taken up. */
  at: number;
  /** The status of the record it was taken up from (`running`: the process running it stopped). */
  from: 'running' | 'interrupted' | 'failed';
  /** Which process took it up (`host:pid`). */
  worker: string;
  /** The calls that were in flight at the last checkpoint, settled on resume. */
  inFlight: string[];
  /** When the record it was taken up from was written: the run waited (queued, paused, stalled) since. */
  lastCheckpointAt?: number;
  /** How many steps the run had then (0: a queued run's first pickup). */
  steps?: number;
}

/** A model request that failed for good (after the client's retries and any fallbacks): the run failed there. */
export interface RunFault {
  /** The step it was for (0-based). */
  step: number;
  /** When the loop asked for the model. */
  requestedAt: number;
  /** When it failed. */
  at: number;
  /** The error, as `Name: message`. */
  error: string;
  /** Its HTTP status, when it had one. */
  status?: number;
  /** The attempts the client retried before giving up. */
  retries?: StepRetry[];
  /** Models passed over for a fallback before it. */
  fallbacks?: StepFallbackMove[];
}

/** Collects a step's timing while its request runs (`callModel` and its fallbacks report to it). */
export class StepTimer {
  /** The times so far (complete once `done` is called). */
  readonly timing: StepTiming;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.timing = { requestedAt: now(), doneAt: 0 };
  }

  /** The request budget admitted the request. */
  sent(): void {
    this.timing.sentAt ??= this.#now();
  }

  /** A streamed piece arrived (only the first counts). */
  firstToken(): void {
    this.timing.firstTokenAt ??= this.#now();
  }

  /** The client retries a failed attempt. */
  retried(retry: RetryInfo, model: string): void {
    const entry: StepRetry = {
      at: this.#now(),
      attempt: retry.attempt,
      delayMs: retry.delayMs,
      rateLimited: isRateLimit(retry.error),
      model,
    };
    if (retry.error.status !== undefined) entry.status = retry.error.status;
    this.timing.retries ??= [];
    this.timing.retries.push(entry);
  }

  /** A fallback model replaces one that failed. */
  fellBack(from: string, to: string, reason: string): void {
    this.timing.fallbacks ??= [];
    this.timing.fallbacks.push({ at: this.#now(), from, to, reason });
  }

  /** The request failed for good: the fault to keep on the state. */
  failed(step: number, error: unknown): RunFault {
    const fault: RunFault = {
      step,
      requestedAt: this.timing.requestedAt,
      at: this.#now(),
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
    if (APIError.isInstance(error) && error.status !== undefined) fault.status = error.status;
    if (this.timing.retries) fault.retries = this.timing.retries;
    if (this.timing.fallbacks) fault.fallbacks = this.timing.fallbacks;
    return fault;
  }

  /** The answer is complete: the timing to record on the step. */
  done(): StepTiming {
    this.timing.doneAt = this.#now();
    return this.timing;
  }
}

/** A 429, or a 503 that says when to come back: the service's own rate limiting. */
export function isRateLimit(error: unknown): error is APIError {
  if (RateLimitError.isInstance(error)) return true;
  return APIError.isInstance(error) && error.status === 503 && parseRetryAfter(error.headers) !== undefined;
}
