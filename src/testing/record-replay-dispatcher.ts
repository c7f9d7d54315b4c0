import { Dispatcher } from 'undici';
import { createRedactor, type Redact, redactValue } from '../core/redact-secret.js';
import {
  type CanonicalRequest,
  canonicalBody,
  describeDifference,
  distance,
  requestKey,
} from './canonical-request.js';
import { type Interaction, KEPT_HEADERS, type RecordedResponse, sseEvents } from './cassette.js';
import { ReplayMissError } from './errors.js';

/** What the dispatcher does with a request: send it and keep the answer, or answer from the recordings. */
export type DispatchMode = 'record' | 'replay';

/** Options of {@link RecordReplayDispatcher}. */
export interface RecordReplayDispatcherOptions {
  mode: DispatchMode;
  /** The cassette's path, for error messages. */
  cassette: string;
  /** Replay: the recorded interactions. Record: ignored. */
  interactions: Interaction[];
  /** Record: where requests really go. */
  upstream?: Dispatcher;
  /** Record: called with each finished interaction (the caller writes the cassette). */
  onRecorded?: (interaction: Interaction) => void;
  /** Further secrets to redact from recordings, besides the bearer key of each request. */
  secrets?: readonly string[];
  /** Rewrites a request body before it is keyed and written (drop a timestamp, a random id). */
  normalize?: (body: unknown) => unknown;
}

/**
 * An undici dispatcher for `SvcClient({ dispatcher })` that records every request and answer, streamed
 * answers event by event, or answers them from a recording with no network and no key. Requests match on
 * method, path and canonical body, the origin left out: a recording made against the emulator on one port
 * replays on any port, and one made against the service replays offline. The n-th of several equal
 * requests gets the n-th recorded answer.
 */
export class RecordReplayDispatcher extends Dispatcher {
  readonly #options: RecordReplayDispatcherOptions;
  readonly #used = new Set<number>();

  constructor(options: RecordReplayDispatcherOptions) {
    super();
    this.#options = options;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const controller = new ReplayController(handler);
    void this.#handle(options, handler, controller).catch((error: unknown) => controller.fail(error));
    return true;
  }

  override async close(): Promise<void> {
    await this.#options.upstream?.close();
  }

  override async destroy(): Promise<void> {
    await this.#options.upstream?.destroy();
  }

  async #handle(
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
    controller: ReplayController,
  ): Promise<void> {
    const redact = createRedactor([...(this.#options.secrets ?? []), ...bearerKeys(options.headers)]);
    const body = await canonicalBody(options.body);
    const request: CanonicalRequest = {
      method: options.method,
      path: options.path,
      body: redactValue(this.#options.normalize ? this.#options.normalize(body) : body, redact),
    };
    if (this.#options.mode === 'record') return this.#record(options, handler, request, redact);
    const key = requestKey(request);
    const at = this.#options.interactions.findIndex(
      (it, i) => !this.#used.has(i) && requestKey(it.request) === key,
    );
    if (at < 0) throw this.#miss(request);
    this.#used.add(at);
    replay(this.#options.interactions[at]!.response, handler, controller);
  }

  #miss(request: CanonicalRequest): ReplayMissError {
    const { interactions, cassette } = this.#options;
    const left = interactions.filter((_, i) => !this.#used.has(i));
    const pool = left.length > 0 ? left : interactions;
    // Each recorded request measured once against the new one.
    let closest: Interaction | undefined;
    let nearest = Number.POSITIVE_INFINITY;
    for (const it of pool) {
      const d = distance(it.request, request);
      if (d < nearest) [closest, nearest] = [it, d];
    }
    const head = `No recording in ${cassette} answers ${request.method} ${request.path}`;
    if (!closest)
      return new ReplayMissError(`${head}: the cassette is empty. Record it with SVC_RECORD_MODE=record.`, {
        cassette,
      });
    return new ReplayMissError(
      `${head}. The closest recorded request differs (- recorded, + sent):\n${describeDifference(closest.request, request)}\n` +
        'Record again with SVC_RECORD_MODE=record if the change is intended.',
      { cassette },
    );
  }

  #record(
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
    request: CanonicalRequest,
    redact: Redact,
  ): void {
    const upstream = this.#options.upstream;
    if (!upstream) throw new Error('RecordReplayDispatcher: record mode needs an upstream dispatcher');
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    upstream.dispatch(options, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, statusCode, upgradeHeaders, socket) =>
        handler.onRequestUpgrade?.(controller, statusCode, upgradeHeaders, socket),
      onResponseStart: (controller, statusCode, responseHeaders, statusMessage) => {
        status = statusCode;
        headers = keptHeaders(responseHeaders);
        handler.onResponseStart?.(controller, statusCode, responseHeaders, statusMessage);
      },
      onResponseData: (controller, chunk) => {
        chunks.push(Buffer.from(chunk));
        handler.onResponseData?.(controller, chunk);
      },
      onResponseEnd: (controller, trailers) => {
        this.#options.onRecorded?.({ request, response: recorded(status, headers, chunks, redact) });
        handler.onResponseEnd?.(controller, trailers);
      },
      onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
    });
  }
}

/** The controller handed to a replayed request's handler: an abort ends the replay with its reason. */
class ReplayController implements Dispatcher.DispatchController {
  #aborted = false;
  #reason: Error | null = null;

  constructor(private readonly handler: Dispatcher.DispatchHandler) {}

  get aborted(): boolean {
    return this.#aborted;
  }
  get paused(): boolean {
    return false;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    queueMicrotask(() => this.handler.onResponseError?.(this, reason));
  }
  pause(): void {}
  resume(): void {}

  /** Ends the request with an error (a miss, a broken cassette), unless it was aborted already. */
  fail(error: unknown): void {
    this.abort(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Plays a recorded answer through the handler as the network would have: start, data, end. */
function replay(
  response: RecordedResponse,
  handler: Dispatcher.DispatchHandler,
  controller: ReplayController,
) {
  handler.onRequestStart?.(controller, {});
  if (controller.aborted) return;
  handler.onResponseStart?.(controller, response.status, { ...response.headers }, '');
  const pieces =
    response.events !== undefined
      ? response.events.map((event) => `${event}\n\n`)
      : [typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? null)];
  for (const piece of pieces) {
    if (controller.aborted) return;
    handler.onResponseData?.(controller, Buffer.from(piece));
  }
  if (!controller.aborted) handler.onResponseEnd?.(controller, {});
}

function recorded(
  status: number,
  headers: Record<string, string>,
  chunks: Buffer[],
  redact: Redact,
): RecordedResponse {
  const text = redact(Buffer.concat(chunks).toString('utf8'));
  if ((headers['content-type'] ?? '').includes('text/event-stream'))
    return { status, headers, events: sseEvents(text) };
  try {
    return { status, headers, body: JSON.parse(text) as unknown };
  } catch {
    return { status, headers, body: text };
  }
}

function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The bearer keys and `x-api-key` values a request carries: redacted from everything recorded. */
function bearerKeys(headers: Dispatcher.DispatchOptions['headers']): string[] {
  const pairs: Array<[string, string]> = [];
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) pairs.push([String(headers[i]), String(headers[i + 1])]);
  } else if (headers && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>))
      if (value !== undefined) pairs.push([name, String(value)]);
  }
  return pairs
    .filter(([name]) => /^(authorization|x-api-key)$/i.test(name))
    .map(([, value]) => value.replace(/^Bearer\s+/i, ''))
    .filter((key) => key.length > 0);
}
