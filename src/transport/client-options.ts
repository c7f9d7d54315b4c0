import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';

/** Options shared by `new SvcClient(...)` and the transport; every field is optional. */
export interface ClientOptions {
  /** API key sent as `Authorization: Bearer <key>`. @default process.env.SVC_API_KEY */
  apiKey?: string | undefined;
  /** Service root, e.g. `https://api.example.com`; a trailing `/` or `/v1` is ignored. @default process.env.SVC_BASE_URL */
  baseURL?: string | undefined;
  /**
   * Time limit of each attempt in ms (a retry gets a fresh one). For a streamed response it bounds the wait
   * for the response head, then the silence between two reads of the body (an idle timeout per read): a
   * stream that stalls ends in a retryable `APITimeoutError`. @default 60_000
   */
  timeout?: number | undefined;
  /** Largest single server-sent event accepted, in bytes; a larger one ends the stream with an `APIError`. @default 33_554_432 (32 MiB) */
  maxStreamEventBytes?: number | undefined;
  /** Retries after the first attempt for connection errors, 408, 409, 429 and 5xx. @default 2 */
  maxRetries?: number | undefined;
  /** Headers sent with every request (a request's own headers win). */
  defaultHeaders?: Record<string, string> | undefined;
  /** An undici dispatcher (Agent, Pool, ProxyAgent, MockAgent) to use instead of the client's own keep-alive Agent. */
  dispatcher?: Dispatcher | undefined;
  /**
   * More secrets masked like the API key in everything the service sends back (success bodies, streams,
   * errors) and in every tool output of an agent using this client: a database password, another key.
   * @default []
   */
  secrets?: readonly string[] | undefined;
  /**
   * The clock retries wait on (their backoff and the service's `Retry-After`). A test passes one whose
   * `sleep` returns at once, to check the waits without spending them. @default the system clock
   */
  clock?: Clock | undefined;
}

/** The defaults of {@link ClientOptions}, applied once, by `normalizeClientOptions`. */
export const defaultClientOptions = {
  timeout: 60_000,
  maxRetries: 2,
} as const;

/**
 * {@link ClientOptions} after checks, with every default applied and `baseURL` reduced to the service
 * root (no trailing `/` or `/v1`): what `normalizeClientOptions` answers and the transport keeps.
 */
export type NormalizedClientOptions = {
  [K in 'apiKey' | 'baseURL' | 'timeout' | 'maxRetries' | 'defaultHeaders']-?: NonNullable<ClientOptions[K]>;
} & { [K in 'dispatcher' | 'maxStreamEventBytes' | 'secrets' | 'clock']?: NonNullable<ClientOptions[K]> };
