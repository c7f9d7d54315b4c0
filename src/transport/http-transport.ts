import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { AttemptAbort } from './attempt-abort.js';
import { buildURL } from './build-url.js';
import { defaultTransportOptions, type TransportOptions } from './client-options.js';
import { APIError } from './errors/api-error.js';
import { APIUserAbortError } from './errors/api-user-abort-error.js';
import { createAPIError } from './errors/create-api-error.js';
import type { HttpRequest, SseResponse } from './http-request.js';
import { type AttemptState, mapTransportError } from './map-transport-error.js';
import { openSseResponse } from './open-sse-response.js';
import { redactSecret } from './redact-secret.js';
import { sendWithRetry } from './send-with-retry.js';
import { toUndiciFormData } from './to-undici-form-data.js';

const maxTimerDelay = 2_147_483_647;

/** A response whose status is 2xx, body not yet read, and the controls of the attempt that got it. */
interface OpenedResponse {
  response: Dispatcher.ResponseData;
  state: AttemptState;
  controller: AttemptAbort;
  /** Stops the attempt's timer. */
  stopTimer(): void;
  /** Stops the timer and forgets the caller's signal. */
  release(): void;
}

/**
 * Sends requests to the service over one keep-alive undici Agent: bearer auth, JSON or multipart bodies,
 * typed errors, per-attempt timeouts, retries with backoff, aborts, and server-sent-event streams.
 * The API key lives in a private field and never shows in `util.inspect`, `JSON.stringify` or errors.
 */
export class HttpTransport {
  /** Service root, without trailing `/` or `/v1`. */
  readonly baseURL: string;
  /** Default time limit of each attempt, in ms. */
  readonly timeout: number;
  /** Default number of retries after the first attempt. */
  readonly maxRetries: number;
  readonly #apiKey: string;
  readonly #defaultHeaders: Record<string, string>;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: TransportOptions) {
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.timeout = options.timeout ?? defaultTransportOptions.timeout;
    this.maxRetries = options.maxRetries ?? defaultTransportOptions.maxRetries;
    this.#apiKey = options.apiKey;
    this.#defaultHeaders = lowerCaseKeys(options.defaultHeaders ?? {});
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
  }

  /** Sends `req` (retrying per the rules) and returns the parsed JSON body (or text with `responseType: 'text'`). */
  request<T>(req: HttpRequest): Promise<T> {
    return sendWithRetry(
      async () => {
        const opened = await this.#open(req, false);
        try {
          const text = await opened.response.body.text();
          return parseBody<T>(text, req.responseType ?? 'json', opened.response);
        } catch (error) {
          throw mapTransportError(error, opened.state, this.#apiKey);
        } finally {
          opened.release();
        }
      },
      { maxRetries: req.maxRetries ?? this.maxRetries, signal: req.signal },
    );
  }

  /**
   * Sends a streamed request. It is retried only until the response status and headers arrive (an error
   * status is thrown as its typed APIError); after that, a failure surfaces from `events`, never a replay.
   */
  stream(req: HttpRequest): Promise<SseResponse> {
    return sendWithRetry(
      async () => {
        const opened = await this.#open(req, true);
        // The timeout bounds the wait for the response head; a long generation must not be cut by it.
        opened.stopTimer();
        return openSseResponse({
          body: opened.response.body,
          headers: opened.response.headers,
          state: opened.state,
          controller: opened.controller,
          release: opened.release,
          apiKey: this.#apiKey,
        });
      },
      { maxRetries: req.maxRetries ?? this.maxRetries, signal: req.signal },
    );
  }

  /** Closes the transport's own Agent and its sockets (a user-given dispatcher is left open). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Key-free JSON view. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, timeout: this.timeout, maxRetries: this.maxRetries };
  }

  [inspect.custom](_depth: number, options: object): string {
    return `HttpTransport ${inspect(this.toJSON(), options)}`;
  }

  /** One attempt up to a 2xx response head; error statuses are read and thrown as typed errors. */
  async #open(req: HttpRequest, stream: boolean): Promise<OpenedResponse> {
    const timeout = req.timeout ?? this.timeout;
    const state: AttemptState = { userAborted: false, timedOut: false, timeout };
    const controller = new AttemptAbort();
    const signal = req.signal;
    const onUserAbort = () => {
      state.userAborted = true;
      controller.abort(new APIUserAbortError(undefined, { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onUserAbort, { once: true });
    // setTimeout fires at once beyond 2^31-1 ms: treat such limits as "no limit".
    const timer =
      timeout <= maxTimerDelay
        ? setTimeout(() => {
            state.timedOut = true;
            controller.abort(new Error(`attempt timed out after ${timeout} ms`));
          }, timeout)
        : undefined;
    const stopTimer = () => clearTimeout(timer);
    const release =
      signal === undefined
        ? stopTimer
        : () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onUserAbort);
          };
    if (signal?.aborted) onUserAbort();

    try {
      const url = new URL(buildURL(this.baseURL, req.path, req.query));
      const response = await this.#dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: this.#headers(req, stream),
        body: encodeBody(req) ?? null,
        // undici also takes an EventEmitter-style signal (on/once/removeListener), cheaper than AbortController.
        signal: controller as unknown as AbortSignal,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        const text = await response.body.text();
        throw createAPIError(response.statusCode, redactSecret(text, this.#apiKey), response.headers);
      }
      return { response, state, controller, stopTimer, release };
    } catch (error) {
      release();
      throw mapTransportError(error, state, this.#apiKey);
    }
  }

  #headers(req: HttpRequest, stream: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      accept: stream ? 'text/event-stream' : 'application/json',
      authorization: `Bearer ${this.#apiKey}`,
      ...this.#defaultHeaders,
      ...(req.headers === undefined ? {} : lowerCaseKeys(req.headers)),
    };
    if (req.body !== undefined && req.form === undefined) headers['content-type'] ??= 'application/json';
    // undici sets the multipart type with its boundary; a stale one would break the body.
    if (req.form !== undefined) delete headers['content-type'];
    return headers;
  }
}

function encodeBody(req: HttpRequest): string | ReturnType<typeof toUndiciFormData> | undefined {
  if (req.body !== undefined && req.form !== undefined) {
    throw new TypeError(`${req.method} ${req.path}: \`body\` and \`form\` are mutually exclusive`);
  }
  if (req.form !== undefined) return toUndiciFormData(req.form);
  return req.body === undefined ? undefined : JSON.stringify(req.body);
}

function parseBody<T>(text: string, responseType: 'json' | 'text', response: Dispatcher.ResponseData): T {
  if (responseType === 'text') return text as T;
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    const snippet = text.slice(0, 200).replace(/\s+/g, ' ');
    throw new APIError(`${response.statusCode} response body is not valid JSON: ${snippet}`, {
      status: response.statusCode,
      type: 'invalid_response_body',
      requestId: headerValue(response.headers['x-trace-id']),
      cause: error,
    });
  }
}

/** First value of a response header. */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
