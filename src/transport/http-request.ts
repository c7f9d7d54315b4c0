import type { AsyncQueue } from './async-queue.js';
import type { RetryInfo } from './send-with-retry.js';

/** One call to the service, as the API layer describes it to {@link HttpTransport}. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Full versioned path appended to the base URL: `/v1/models`, `/svc_plan/v1/chat/completions`. */
  path: string;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** JSON body, sent with `Content-Type: application/json`. */
  body?: unknown;
  /** Multipart body (file upload); mutually exclusive with `body`. Blob entries are re-read on a retry. */
  form?: FormData | undefined;
  /** Extra headers for this request; they win over the client's `defaultHeaders`. */
  headers?: Record<string, string> | undefined;
  /** Cancels the request, its retry waits and its stream with `APIUserAbortError`. */
  signal?: AbortSignal | undefined;
  /** Time limit of each attempt in ms; overrides the client's. */
  timeout?: number | undefined;
  /** Retries after the first attempt; overrides the client's. */
  maxRetries?: number | undefined;
  /** Called before each retry, with the failure and the wait. */
  onRetry?: ((retry: RetryInfo) => void) | undefined;
  /** How to read a successful body. @default 'json' */
  responseType?: 'json' | 'text' | undefined;
}

/** A streamed response whose status and headers arrived (2xx); the events are read as they come. */
export interface SseResponse {
  /**
   * The `data` payload of each event; `[DONE]` ends it and is not yielded. Read it once, per event
   * (`next`) or per network read (`readBatch`), not both; a failure (cut socket, abort, idle timeout) is
   * thrown as a typed error, never replayed.
   */
  events: AsyncQueue<string>;
  /** The `X-Trace-Id` response header. */
  requestId: string | undefined;
  /** Stops the stream now: a pending or later read of `events` throws `APIUserAbortError`. */
  abort(reason?: unknown): void;
  /** Stops reading early (the consumer quit): drops the connection, releases the caller's signal. */
  close(): void;
  /**
   * After the events ended: `done` when `data: [DONE]` arrived, `eof` when the body just stopped (a
   * truncated stream, unless its content says it was complete).
   */
  ended(): 'done' | 'eof';
  /** Removes the API key from server text before it is quoted in an error. */
  redact(text: string): string;
}
