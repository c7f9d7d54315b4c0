import type { RetryInfo } from '../../transport/send-with-retry.js';

/** Which channel a resource talks to: `/v1` or the plan channel's `/svc_plan/v1`. */
export type Channel = 'default' | 'plan';

/** Per-call options accepted by every resource method, as the second argument. */
export interface RequestOptions {
  /** Cancels the request, its retry waits and, for streams, the stream itself. */
  signal?: AbortSignal | undefined;
  /** Milliseconds per attempt; overrides the client's `timeout`. */
  timeout?: number | undefined;
  /** Retries for this call; overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /** Extra headers for this call only. */
  headers?: Record<string, string> | undefined;
  /** Called before each retry of this call (after a retryable failure), e.g. to record it in a trace. */
  onRetry?: ((retry: RetryInfo) => void) | undefined;
}
