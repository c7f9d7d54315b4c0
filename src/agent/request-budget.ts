import { ChatCompletionStream } from '../api/chat/chat-completion-stream.js';
import type { ChatCompletionCreateParams, Usage } from '../api/types/chat.js';
import { parseRetryAfter } from '../transport/retry-timing.js';
import type { RetryInfo } from '../transport/send-with-retry.js';
import type { CreateChatCompletion } from './loop/call-model.js';
import { isRateLimit } from './step-timing.js';

/**
 * Budgets shared beyond one run (a queue's fleet-wide rate limits): every model request of a run waits in
 * `acquire` before it is sent, and tells its lease how it went. The agent knows nothing more of it.
 */
export interface RequestBudget {
  /** Waits until the request may be sent (it rejects when `signal` aborts); answers its lease. */
  acquire(request: BudgetRequest): Promise<BudgetLease>;
}

/** A model request about to be sent. */
export interface BudgetRequest {
  /** The request as it will be sent (its `model` is the one the budget is for). */
  params: ChatCompletionCreateParams;
  /** The run's signal: a wait ends with it. */
  signal: AbortSignal | undefined;
}

/** One admitted request: what the service answered. */
export interface BudgetLease {
  /** The service rate-limited an attempt (429, or 503 with a server-given wait): hold the model back this long. */
  rateLimited(retryAfterMs: number | undefined): void;
  /** The request ended; `usage` (when known) replaces the estimate it was admitted with. */
  settle(usage: Usage | undefined): void;
}

/**
 * Puts `budget` in front of a model call: wait for budget, send, report each rate-limited attempt (the
 * client's own retries included, through `onRetry`) and settle with the real usage (a stream's at its end).
 */
export function withRequestBudget(create: CreateChatCompletion, budget: RequestBudget): CreateChatCompletion {
  return async (params, options) => {
    const lease = await budget.acquire({ params, signal: options.signal });
    options.onSent?.();
    const onRetry = (retry: RetryInfo) => {
      options.onRetry?.(retry);
      if (isRateLimit(retry.error)) lease.rateLimited(retry.delayMs);
    };
    let response: Awaited<ReturnType<CreateChatCompletion>>;
    try {
      response = await create(params, { ...options, onRetry });
    } catch (error) {
      if (isRateLimit(error)) lease.rateLimited(parseRetryAfter(error.headers));
      lease.settle(undefined);
      throw error;
    }
    if (response instanceof ChatCompletionStream) {
      // Observed, not drained: the agent reads the stream.
      response.whenDone().then(
        (completion) => lease.settle(completion.usage ?? undefined),
        () => lease.settle(undefined),
      );
    } else {
      lease.settle(response.usage ?? undefined);
    }
    return response;
  };
}
