import { inspect } from 'node:util';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../core/clock.js';
import { createAPIError, InvalidResponseError } from '../core/errors.js';
import { loadOnce } from '../core/load-module.js';
import { createRedactor, type Redact, redactValue } from '../core/redact-secret.js';
import { AttemptGuard } from './attempt-guard.js';
import { type BufferedResponse, BufferedResponseHandler } from './buffered-response-handler.js';
import type { ClientOptions } from './client-options.js';
import type { HttpRequest, SseResponse } from './http-request.js';
import { mapTransportError } from './map-transport-error.js';
import { normalizeClientOptions } from './normalize-client-options.js';
import { sendWithRetry } from './send-with-retry.js';
import { SseResponseHandler } from './sse-response-handler.js';
import { buildURL, headerValue, lowerCaseKeys, toUndiciFormData } from './utils.js';

/**
 * undici, loaded by the first request instead of at import. Importing the package costs more CPU than
 * the rest of the main entry together (a cold `import` of the main entry with zod cost more than `openai`
 * with zod because of it, bench/results/2026-11-26-floor.md); CLI and serverless users pay that import
 * before their first line runs. Node's own `fetch` loads its copy of undici lazily the same way. A
 * process's first request pays it once; every later request reads the loaded module synchronously.
 */
const loadUndici = loadOnce(() => import('undici'));

/**
 * Sends requests to the service over one keep-alive undici Agent: bearer auth, JSON or multipart bodies,
 * typed errors, per-attempt timeouts, retries with backoff, aborts, and server-sent-event streams.
 * Responses are read with undici's dispatch handler API (no Readable stream per response).
 * The API key lives in a private field and never shows in `util.inspect`, `JSON.stringify` or errors.
 */
export class HttpTransport {
  /** Service root, without trailing `/` or `/v1`. */
  readonly baseURL: string;
  /** Default time limit of each attempt, in ms. */
  readonly timeout: number;
  /** Default number of retries after the first attempt. */
  readonly maxRetries: number;
  /** Largest single stream event accepted, in bytes. */
  readonly maxStreamEventBytes: number | undefined;
  readonly #apiKey: string;
  /** Masks the key in everything a server sends back, before any of it reaches an error. */
  readonly #redact: Redact;
  readonly #defaultHeaders: Record<string, string>;
  /** The user's dispatcher, or our own Agent once the first request has loaded undici. */
  #dispatcher: Dispatcher | undefined;
  /** undici's FormData class, once loaded: multipart bodies must be undici's own (see `toUndiciFormData`). */
  #undici: typeof import('undici') | undefined;
  readonly #ownsDispatcher: boolean;
  /** `scheme://host:port` of the base URL, and its path prefix (no trailing `/`): parsed once, not per request. */
  readonly #origin: string;
  readonly #basePath: string;
  /** The headers of requests that add none of their own, built once per kind (see `#headers`). */
  readonly #sharedHeaders = new Map<string, Record<string, string>>();
  /** What retries wait on. */
  readonly #clock: Clock;

  /** Checks `options` and applies their defaults (`normalizeClientOptions`); `SvcClient` builds one for you. */
  constructor(clientOptions: ClientOptions = {}) {
    const options = normalizeClientOptions(clientOptions);
    this.baseURL = options.baseURL;
    this.timeout = options.timeout;
    this.maxRetries = options.maxRetries;
    this.maxStreamEventBytes = options.maxStreamEventBytes;
    this.#apiKey = options.apiKey;
    this.#redact = createRedactor([options.apiKey, ...(options.secrets ?? [])]);
    this.#defaultHeaders = lowerCaseKeys(options.defaultHeaders);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher;
    this.#clock = options.clock ?? systemClock;
    this.#origin = new URL(this.baseURL).origin;
    this.#basePath = this.baseURL.slice(this.#origin.length);
  }

  /** Sends `req` (retrying per the rules) and returns the parsed JSON body (or text with `responseType: 'text'`). */
  request<T>(req: HttpRequest): Promise<T> {
    return sendWithRetry(() => this.#requestOnce<T>(req), {
      maxRetries: req.maxRetries ?? this.maxRetries,
      signal: req.signal,
      onRetry: req.onRetry,
      clock: this.#clock,
    });
  }

  /**
   * Sends a streamed request. It is retried only until the response status and headers arrive (an error
   * status is thrown as its typed APIError); after that, a failure surfaces from `events`, never a replay.
   */
  stream(req: HttpRequest): Promise<SseResponse> {
    return sendWithRetry(() => this.#streamOnce(req), {
      maxRetries: req.maxRetries ?? this.maxRetries,
      signal: req.signal,
      onRetry: req.onRetry,
      clock: this.#clock,
    });
  }

  /** Closes the transport's own Agent and its sockets (a user-given dispatcher is left open). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher?.close();
  }

  /** Key-free JSON view. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, timeout: this.timeout, maxRetries: this.maxRetries };
  }

  /** `text` with the API key and the configured `secrets` masked, in every encoding a server may echo them in. */
  redact(text: string): string {
    return this.#redact(text);
  }

  [inspect.custom](_depth: number, options: object): string {
    return `HttpTransport ${inspect(this.toJSON(), options)}`;
  }

  /** One attempt of a buffered request: the timeout bounds it whole, body included. */
  async #requestOnce<T>(req: HttpRequest): Promise<T> {
    // Only the first request (and a multipart one before undici is loaded) waits here.
    if (this.#dispatcher === undefined || (req.form !== undefined && this.#undici === undefined)) {
      await this.#loadUndici();
    }
    const handler = new BufferedResponseHandler();
    const guard = new AttemptGuard(req.timeout ?? this.timeout, req.signal);
    guard.arm((reason) => handler.abort(reason));
    try {
      if (!guard.userAborted) this.#dispatch(req, false, handler);
      const response = await handler.response;
      this.#throwIfErrorStatus(response);
      return parseBody<T>(response, req.responseType ?? 'json', this.#redact);
    } catch (error) {
      throw mapTransportError(error, guard, this.#redact);
    } finally {
      guard.release();
    }
  }

  /**
   * One attempt of a streamed request, up to a 2xx event-stream head. The timeout bounds the wait for the
   * head, then the silence between reads of the body (an idle timeout, restarted by every read).
   */
  async #streamOnce(req: HttpRequest): Promise<SseResponse> {
    if (this.#dispatcher === undefined || (req.form !== undefined && this.#undici === undefined)) {
      await this.#loadUndici();
    }
    const redact = this.#redact;
    const guard = new AttemptGuard(req.timeout ?? this.timeout, req.signal);
    const handler = new SseResponseHandler({
      mapError: (error) => mapTransportError(error, guard, redact, 'Stream interrupted'),
      onFinish: () => guard.release(),
      onActivity: () => guard.restartTimer(),
      onPause: () => guard.stopTimer(),
      maxEventBytes: this.maxStreamEventBytes,
    });
    guard.arm((reason) => handler.abort(reason));
    try {
      if (!guard.userAborted) this.#dispatch(req, true, handler);
      const head = await handler.head;
      if (head.text !== undefined) {
        this.#throwIfErrorStatus({ ...head, text: head.text });
        if (head.notEventStream) throw this.#notEventStreamError({ ...head, text: head.text });
      }
      // From here the time limit is an idle timeout: the handler restarts it on every read.
      guard.restartTimer();
      return {
        events: handler.events,
        requestId: redactedHeader(head.headers['x-trace-id'], redact),
        abort: (reason) => guard.abortByUser(reason),
        close: () => handler.close(),
        ended: () => (handler.sawDone ? 'done' : 'eof'),
        redact,
      };
    } catch (error) {
      guard.release();
      throw mapTransportError(error, guard, redact);
    }
  }

  /** Loads undici and, unless the user gave a dispatcher, creates the transport's own keep-alive Agent. */
  async #loadUndici(): Promise<void> {
    const undici = await loadUndici();
    this.#undici = undici;
    this.#dispatcher ??= new undici.Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
  }

  #dispatch(req: HttpRequest, stream: boolean, handler: Dispatcher.DispatchHandler): void {
    // Both are set: `#requestOnce` and `#streamOnce` load undici before the first dispatch.
    (this.#dispatcher as Dispatcher).dispatch(
      {
        origin: this.#origin,
        path: buildURL(this.#basePath, req.path, req.query),
        method: req.method,
        headers: this.#headers(req, stream),
        body: encodeBody(req, this.#undici) ?? null,
      },
      handler,
    );
  }

  /** A 2xx answering a streamed request with something that is not an event stream. */
  #notEventStreamError(response: BufferedResponse): InvalidResponseError {
    const type = headerValue(response.headers['content-type']) ?? '(none)';
    const snippet = this.#redact(response.text).slice(0, 200).replace(/\s+/g, ' ').trim();
    return new InvalidResponseError(
      `${response.statusCode} response to a streamed request is not an event stream (content-type ${type}): ${snippet || '(empty body)'}`,
      {
        status: response.statusCode,
        requestId: redactedHeader(response.headers['x-trace-id'], this.#redact),
        body: snippet,
      },
    );
  }

  #throwIfErrorStatus(response: BufferedResponse): void {
    if (response.statusCode >= 200 && response.statusCode < 300) return;
    throw createAPIError(response.statusCode, response.text, response.headers, this.#redact);
  }

  #headers(req: HttpRequest, stream: boolean): Record<string, string> {
    const json = req.body !== undefined && req.form === undefined;
    // Most requests add no headers of their own: reuse one object per kind (undici only reads it).
    const shared = req.headers === undefined && req.form === undefined;
    const key = `${stream}${json}`;
    if (shared) {
      const cached = this.#sharedHeaders.get(key);
      if (cached !== undefined) return cached;
    }
    const headers: Record<string, string> = {
      accept: stream ? 'text/event-stream' : 'application/json',
      authorization: `Bearer ${this.#apiKey}`,
      ...this.#defaultHeaders,
      ...(req.headers === undefined ? {} : lowerCaseKeys(req.headers)),
    };
    if (json) headers['content-type'] ??= 'application/json';
    // undici sets the multipart type with its boundary; a stale one would break the body.
    if (req.form !== undefined) delete headers['content-type'];
    if (shared) this.#sharedHeaders.set(key, Object.freeze(headers));
    return headers;
  }
}

function encodeBody(
  req: HttpRequest,
  undici: typeof import('undici') | undefined,
): string | ReturnType<typeof toUndiciFormData> | undefined {
  if (req.body !== undefined && req.form !== undefined) {
    throw new TypeError(`${req.method} ${req.path}: \`body\` and \`form\` are mutually exclusive`);
  }
  if (req.form !== undefined) return toUndiciFormData(req.form, (undici as typeof import('undici')).FormData);
  return req.body === undefined ? undefined : JSON.stringify(req.body);
}

function parseBody<T>(response: BufferedResponse, responseType: 'json' | 'text', redact: Redact): T {
  const { text } = response;
  // Success bodies too: a file's extracted text or a search hit may hold the key (a prompt injection
  // that had a secret uploaded), and what a tool reads goes to the model, the events and the store.
  if (responseType === 'text') return redact(text) as T;
  if (text === '') return undefined as T;
  try {
    return redactValue(JSON.parse(text), redact) as T;
  } catch {
    // The server's text may echo the key; the parser's message quotes it too, so it is not kept as cause.
    const snippet = redact(text).slice(0, 200).replace(/\s+/g, ' ');
    throw new InvalidResponseError(`${response.statusCode} response body is not valid JSON: ${snippet}`, {
      status: response.statusCode,
      type: 'invalid_response_body',
      requestId: redactedHeader(response.headers['x-trace-id'], redact),
      body: snippet,
    });
  }
}

/** A response header's first value with the key masked (a server may echo it in `X-Trace-Id`). */
function redactedHeader(value: string | string[] | undefined, redact: Redact): string | undefined {
  const first = headerValue(value);
  return first === undefined ? undefined : redact(first);
}
