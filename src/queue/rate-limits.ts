import { ConfigurationError } from '../core/errors.js';

/** Requests and tokens one budget admits per window. */
export interface Budget {
  /** Model requests per window (RPM with the default window). @default unlimited */
  requests?: number;
  /** Tokens per window (TPM with the default window): estimated before a request, corrected by its usage. @default unlimited */
  tokens?: number;
}

/**
 * Rate limits shared by every worker of a queue (`startWorker({ limits })`): a model request waits until
 * the budgets of its model and of the account let it go, and a 429 pauses that model on every worker.
 * @example limits: { models: { 'svc-3.5-flash': { requests: 600, tokens: 200_000 } }, account: { requests: 1_000 } }
 */
export interface RateLimits {
  /** Budgets per model id; `'*'` gives every model not listed a budget of its own. */
  models?: Record<string, Budget>;
  /** One budget over all the account's model requests. */
  account?: Budget;
  /** The window the budgets count over: a minute makes them RPM and TPM. @default 60_000 */
  windowMs?: number;
  /**
   * Share of a window's budget a bucket holds, so may send at once after a quiet spell. Small keeps a
   * service counting over a sliding window from seeing more than its limit. @default 0.05
   */
  burst?: number;
}

/** A token bucket: its key and refill rates (per ms) and capacities; a rate below 0 means unlimited. */
export interface BucketSpec {
  key: string;
  requestRate: number;
  requestCapacity: number;
  tokenRate: number;
  tokenCapacity: number;
  /** How long an idle bucket is kept, in ms (it is full again by then). */
  ttlMs: number;
}

/** Limits checked and with defaults filled in. */
export interface NormalizedRateLimits {
  models: ReadonlyMap<string, Budget>;
  account: Budget | undefined;
  windowMs: number;
  burst: number;
}

/** Checks `limits`, naming the field and the rule. */
export function normalizeRateLimits(limits: RateLimits): NormalizedRateLimits {
  const { models = {}, account, windowMs = 60_000, burst = 0.05 } = limits;
  if (!Number.isFinite(windowMs) || windowMs <= 0) {
    throw new ConfigurationError({
      field: `limits.windowMs`,
      rule: `must be a positive number of milliseconds, got ${String(windowMs)}`,
    });
  }
  if (!Number.isFinite(burst) || burst <= 0 || burst > 1) {
    throw new ConfigurationError({
      field: `limits.burst`,
      rule: `must be a share above 0 and at most 1, got ${String(burst)}`,
    });
  }
  for (const [model, budget] of Object.entries(models)) checkBudget(budget, `limits.models["${model}"]`);
  if (account !== undefined) checkBudget(account, 'limits.account');
  return { models: new Map(Object.entries(models)), account, windowMs, burst };
}

/** The buckets a request for `model` takes from: its model's (when it has a budget), then the account's. */
export function bucketsFor(limits: NormalizedRateLimits, prefix: string, model: string): BucketSpec[] {
  const buckets: BucketSpec[] = [];
  const budget = limits.models.get(model) ?? limits.models.get('*');
  if (budget) buckets.push(bucketSpec(`${prefix}model:${model}`, budget, limits));
  if (limits.account) buckets.push(bucketSpec(`${prefix}account`, limits.account, limits));
  // A model without a budget still gets a bucket with no budget: a 429 pauses it for every worker.
  if (buckets.length === 0) buckets.push(bucketSpec(`${prefix}model:${model}`, {}, limits));
  return buckets;
}

function bucketSpec(key: string, { requests, tokens }: Budget, limits: NormalizedRateLimits): BucketSpec {
  const { windowMs, burst } = limits;
  return {
    key,
    requestRate: requests === undefined ? -1 : requests / windowMs,
    requestCapacity: requests === undefined ? 0 : Math.max(1, Math.floor(requests * burst)),
    tokenRate: tokens === undefined ? -1 : tokens / windowMs,
    tokenCapacity: tokens === undefined ? 0 : Math.max(1, Math.floor(tokens * burst)),
    ttlMs: windowMs * 2,
  };
}

function checkBudget(budget: Budget, where: string): void {
  if (typeof budget !== 'object' || budget === null)
    throw new ConfigurationError({ field: `${where}`, rule: `must be { requests?, tokens? }` });
  for (const key of ['requests', 'tokens'] as const) {
    const value = budget[key];
    if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
      throw new ConfigurationError({
        field: `${where}.${key}`,
        rule: `must be a positive number per window, got ${String(value)}`,
      });
    }
  }
}

/** A bucket's stored state: requests and tokens left, when they were last counted, and a pause's end (ms). */
export interface BucketState {
  requests: number;
  tokens: number;
  updatedAt: number;
  pausedUntil: number;
}

/**
 * The token-bucket step, the same as the Redis Lua script's: refill every bucket to `now`; when each has
 * a request and `cost` tokens (capped at its capacity) and none is paused, take them (wait 0); otherwise
 * take nothing and answer the ms until all could. A new bucket starts with one request and full tokens.
 */
export function takeFromBuckets(
  specs: readonly BucketSpec[],
  states: ReadonlyArray<BucketState | undefined>,
  cost: number,
  now: number,
): { wait: number; states: BucketState[] } {
  let wait = 0;
  const next = specs.map((spec, i) => {
    const state = states[i] ?? { requests: 1, tokens: spec.tokenCapacity, updatedAt: now, pausedUntil: 0 };
    const elapsed = Math.max(0, now - state.updatedAt);
    const requests = Math.min(spec.requestCapacity, state.requests + elapsed * spec.requestRate);
    const tokens = Math.min(spec.tokenCapacity, state.tokens + elapsed * spec.tokenRate);
    if (state.pausedUntil > now) wait = Math.max(wait, state.pausedUntil - now);
    if (spec.requestRate >= 0 && requests < 1) wait = Math.max(wait, (1 - requests) / spec.requestRate);
    const take = Math.min(cost, spec.tokenCapacity);
    if (spec.tokenRate >= 0 && tokens < take) wait = Math.max(wait, (take - tokens) / spec.tokenRate);
    return { requests, tokens, updatedAt: now, pausedUntil: state.pausedUntil, take };
  });
  if (wait > 0) return { wait: Math.ceil(wait), states: next.map(({ take: _, ...state }) => state) };
  return {
    wait: 0,
    states: next.map(({ take, ...state }, i) => ({
      ...state,
      requests: specs[i]!.requestRate >= 0 ? state.requests - 1 : state.requests,
      tokens: specs[i]!.tokenRate >= 0 ? state.tokens - take : state.tokens,
    })),
  };
}
