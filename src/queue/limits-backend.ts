import type { BucketSpec } from './rate-limits.js';

/**
 * The most one call to a limits backend may take (connect, command, query, statement): past it the call
 * fails, and the limiter lets requests go out unchecked rather than hold every run of the worker back.
 */
export const LIMITS_BACKEND_TIMEOUT_MS = 5_000;

/** Counters of the stats, per model and tenant and window. */
export type LimitStatField = 'requests' | 'tokens' | 'waits' | 'rateLimited' | 'fallbacks';

/** One model and tenant's counters in a window. */
export interface LimitStatsRow {
  model: string;
  /** The runs' tenant; `''` for runs enqueued without one. */
  tenant: string;
  /** Model requests sent. */
  requests: number;
  /** Tokens used (estimated at sending, corrected by the usage). */
  tokens: number;
  /** Requests that waited for budget. */
  waits: number;
  /** Rate-limited answers (429, or 503 with a wait) received. */
  rateLimited: number;
  /** Turns moved to a fallback model. */
  fallbacks: number;
}

/**
 * What the fleet shares for rate limits and fairness, on the queue's Redis or PostgreSQL: token buckets,
 * pauses, stats counters, and each tenant's backlog of queued runs.
 */
export interface LimitsBackend {
  /** Takes one request and `cost` tokens from every bucket, or takes nothing and answers the ms to wait. */
  take(buckets: readonly BucketSpec[], cost: number): Promise<number>;
  /** Takes `tokens` more from the buckets with a token budget (gives back when negative). */
  adjust(buckets: readonly BucketSpec[], tokens: number): Promise<void>;
  /** Holds the bucket back for `ms` from now (a later end already set stays). */
  pause(bucket: BucketSpec, ms: number): Promise<void>;
  /** Adds to the counters of `window` (a window index: time / windowMs). */
  count(
    window: number,
    model: string,
    tenant: string,
    add: Partial<Record<LimitStatField, number>>,
  ): Promise<void>;
  /** The counters of `window`. */
  stats(window: number): Promise<LimitStatsRow[]>;
  /** One more queued run of `tenant`; answers how many it has queued now. */
  enterBacklog(tenant: string): Promise<number>;
  /** One queued run of `tenant` started (never below 0). */
  leaveBacklog(tenant: string): Promise<void>;
  close(): Promise<void>;
}

/** Empty counters of a model and tenant. */
export function emptyStatsRow(model: string, tenant: string): LimitStatsRow {
  return { model, tenant, requests: 0, tokens: 0, waits: 0, rateLimited: 0, fallbacks: 0 };
}
