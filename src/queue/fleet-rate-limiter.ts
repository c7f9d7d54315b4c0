import {
  estimateMessageTokens,
  loadTokenizer,
  PROMPT_PRIMING_TOKENS,
} from '../agent/context/local-tokens.js';
import type { BudgetLease, BudgetRequest, RequestBudget } from '../agent/request-budget.js';
import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import { abortableDelay } from '../core/clock.js';
import type { LimitStatField, LimitsBackend } from './limits-backend.js';
import { type BucketSpec, bucketsFor, type NormalizedRateLimits } from './rate-limits.js';

/** Used when a 429 gave no wait: long enough for a window's budget to come back in part. */
const DEFAULT_PAUSE_MS = 1_000;
/** Wakers of one refill are spread over this much, so they do not all ask at the same instant. */
const MAX_JITTER_MS = 20;
/**
 * After a failed take the backend is not asked again for this long: the requests in between go out
 * unchecked at once, rather than each in line waiting out its own timeout on a half-open connection.
 */
const UNREACHABLE_BACKOFF_MS = 5_000;

/** Options of `createFleetRateLimiter`. */
export interface FleetRateLimiterOptions {
  limits: NormalizedRateLimits;
  backend: LimitsBackend;
  /** Bucket keys start with it (one queue's limits apart from another's). */
  prefix: string;
  /** Errors of the backend: a request then goes out unchecked rather than fail its run. */
  onError: (error: unknown) => void;
}

/** A queue worker's side of the shared limits: a `RequestBudget` per run, and its counters. */
export interface FleetRateLimiter {
  /** The budget the run's model requests wait on, counted under its tenant. */
  forRun(run: { tenant: string | undefined }): RequestBudget;
  /** Counts a turn of a run of `tenant` moved off `model`. */
  countFallback(model: string, tenant: string | undefined): void;
}

/**
 * Shared token buckets per model (and for the account): a request estimates its tokens with the local
 * tokenizer, waits until every bucket has a request and those tokens, and settles with the real usage.
 * A rate-limited answer pauses the model's bucket for every worker until its `Retry-After` has passed.
 */
export function createFleetRateLimiter({
  limits,
  backend,
  prefix,
  onError,
}: FleetRateLimiterOptions): FleetRateLimiter {
  const window = () => Math.floor(Date.now() / limits.windowMs);
  const count = (model: string, tenant: string, add: Partial<Record<LimitStatField, number>>) => {
    backend.count(window(), model, tenant, add).catch(onError);
  };

  // Until then a take goes out unchecked without asking the backend (it failed or timed out last time).
  let unreachableUntil = 0;

  // Until a model has answered this process (at the start, and again after a 429), one request to it is
  // out at a time: the others wait for its answer. Without it every run of a worker sent its request
  // before the first 429 came back and its pause was stored (64 of 64 runs of two workers inside a
  // 1.5 s refusal); with it the fleet sends one per worker, then waits out the pause.
  const gates = new Map<string, ProbeGate>();
  const gateOf = (line: string) => {
    let gate = gates.get(line);
    if (!gate) {
      gate = { open: false, probe: undefined };
      gates.set(line, gate);
    }
    return gate;
  };
  // Resolves once the request may go: at once when the model answered lately, else after the probe's
  // answer (or as the probe). Answers whether it was held by a probe that met a 429 or waited.
  const passGate = async (line: string, signal: AbortSignal | undefined) => {
    let held = false;
    for (;;) {
      const gate = gateOf(line);
      if (gate.open) return { held, probe: undefined };
      if (!gate.probe) {
        let done!: (waited: boolean) => void;
        const promise = new Promise<boolean>((resolve) => {
          done = resolve;
        });
        const probe = { promise, done };
        gate.probe = probe;
        return { held, probe };
      }
      signal?.throwIfAborted();
      const waited = await untilAborted(gate.probe.promise, signal);
      held ||= waited === true;
    }
  };
  // The probe's request ended: answered (the gate opens) or rate-limited (the next one probes).
  const endProbe = (line: string, probe: Probe, rateLimited: boolean, waited: boolean) => {
    const gate = gateOf(line);
    if (gate.probe === probe) gate.probe = undefined;
    if (!rateLimited) gate.open = true;
    probe.done(rateLimited || waited);
  };

  // One request per model at a time asks the backend from this process; the others wait in line here, so
  // a refill wakes one asker per worker rather than every waiting run. Each resolves its place in line
  // with whether it waited for budget: one behind it in line waited too.
  const lines = new Map<string, Promise<boolean>>();
  const acquire = async (request: BudgetRequest, tenant: string): Promise<BudgetLease> => {
    const { params, signal } = request;
    const model = params.model;
    const buckets = bucketsFor(limits, prefix, model);
    const estimate = buckets.some((bucket) => bucket.tokenRate >= 0) ? await estimateTokens(params) : 0;
    const line = buckets.map((bucket) => bucket.key).join(' ');
    const gate = await passGate(line, signal);
    const ahead = lines.get(line);
    let leave!: (waited: boolean) => void;
    const mine = new Promise<boolean>((resolve) => {
      leave = resolve;
    });
    const tail = (ahead ?? Promise.resolve(false)).then(() => mine);
    lines.set(line, tail);
    let waited = gate.held;
    let admitted = false;
    try {
      if (ahead) waited = (await ahead) || waited;
      waited = await take(buckets, estimate, signal, waited);
      count(model, tenant, { requests: 1, tokens: estimate, waits: waited ? 1 : 0 });
      const admittedLease = lease(model, tenant, buckets, estimate, line, gate.probe, waited);
      admitted = true;
      return admittedLease;
    } finally {
      if (gate.probe && !admitted) endProbe(line, gate.probe, true, waited);
      leave(waited);
      if (lines.get(line) === tail) lines.delete(line);
    }
  };

  // Waits until the buckets admit the request (or the backend is out of reach); answers whether it waited.
  const take = async (
    buckets: BucketSpec[],
    estimate: number,
    signal: AbortSignal | undefined,
    waitedAhead: boolean,
  ): Promise<boolean> => {
    let waited = waitedAhead;
    for (;;) {
      if (Date.now() < unreachableUntil) break;
      let wait: number;
      try {
        wait = await backend.take(buckets, estimate);
      } catch (error) {
        // The shared budget is out of reach: the service's own 429s still hold the fleet back.
        unreachableUntil = Date.now() + UNREACHABLE_BACKOFF_MS;
        onError(error);
        break;
      }
      if (wait <= 0) break;
      waited = true;
      await abortableDelay(wait + Math.random() * Math.min(MAX_JITTER_MS, wait), signal);
    }
    return waited;
  };

  const lease = (
    model: string,
    tenant: string,
    buckets: BucketSpec[],
    estimate: number,
    line: string,
    probe: Probe | undefined,
    waited: boolean,
  ): BudgetLease => {
    let settled = false;
    let limited = false;
    let ended = false;
    return {
      rateLimited(retryAfterMs) {
        limited = true;
        // This process sends no more to the model until one request has been answered again.
        gateOf(line).open = false;
        const bucket = buckets[0];
        // Counted once the pause is stored: whoever sees the count finds the fleet paused.
        const paused = bucket ? backend.pause(bucket, retryAfterMs ?? DEFAULT_PAUSE_MS) : Promise.resolve();
        paused.catch(onError).finally(() => count(model, tenant, { rateLimited: 1 }));
      },
      settle(usage) {
        if (!ended) {
          ended = true;
          // Answered in the end (the client's own retry got through): the model answers again.
          const refused = limited && usage === undefined;
          if (probe) endProbe(line, probe, refused, waited || limited);
          else if (!refused) gateOf(line).open = true;
        }
        if (settled || usage === undefined) return;
        settled = true;
        const correction = usage.total_tokens - estimate;
        if (correction === 0) return;
        count(model, tenant, { tokens: correction });
        backend.adjust(buckets, correction).catch(onError);
      },
    };
  };

  return {
    forRun({ tenant = '' }) {
      return { acquire: (request) => acquire(request, tenant) };
    },
    countFallback(model, tenant = '') {
      count(model, tenant, { fallbacks: 1 });
    },
  };
}

/** The request's prompt tokens by the local tokenizer, plus the answer's `max_tokens` when it sets one. */
async function estimateTokens(params: ChatCompletionCreateParams): Promise<number> {
  const tokenizer = await loadTokenizer();
  let total = PROMPT_PRIMING_TOKENS + (params.max_tokens ?? 0);
  for (const message of params.messages) total += estimateMessageTokens(message, tokenizer);
  if (params.tools && params.tools.length > 0) total += tokenizer.countTokens(JSON.stringify(params.tools));
  return total;
}

// The request that finds out whether a model answers again; the others of the process wait for it.
interface Probe {
  promise: Promise<boolean>;
  done: (waited: boolean) => void;
}

interface ProbeGate {
  /** The model answered this process lately: requests go without a probe. */
  open: boolean;
  probe: Probe | undefined;
}

// `promise`, or the signal's reason once it aborts (its listener removed either way).
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
