import type { Dispatcher } from 'undici';
import { APIError } from '../core/errors.js';
import { AsyncQueue } from './async-queue.js';
import type { BufferedResponse } from './buffered-response-handler.js';
import { SseDecoder } from './sse/sse-decoder.js';

/** The head of a streamed response: for an error status, with its whole body (`text`) already read. */
export interface SseResponseHead {
  statusCode: number;
  headers: BufferedResponse['headers'];
  /**
   * The body of a non-2xx response, or of a 2xx that is not an event stream (see `notEventStream`);
   * `undefined` for a 2xx event stream, whose body is read as events.
   */
  text: string | undefined;
  /** True for a 2xx whose `content-type` is not `text/event-stream` (a JSON body, a proxy's HTML page). */
  notEventStream?: boolean;
}

/** Options of {@link SseResponseHandler}. */
export interface SseResponseHandlerOptions {
  /** Maps a failure after the head (cut socket, abort, idle timeout) to the error `events` throws. */
  mapError: (error: unknown) => unknown;
  /** Called once when the events are over: `[DONE]`, the end of the body, a failure, or `close()`. */
  onFinish: () => void;
  /** Called on each network read of the body and when reading resumes: restarts the idle timer. */
  onActivity?: (() => void) | undefined;
  /** Called when reading pauses for a slow consumer: the silence is ours, the idle timer stops. */
  onPause?: (() => void) | undefined;
  /** Largest single event, in bytes. */
  maxEventBytes?: number | undefined;
}

/** How much of a 2xx body that is not an event stream is kept to describe it. */
const maxForeignBody = 64 * 1024;

/** Events decoded but not yet read before undici is asked to stop reading the socket. */
const highWaterMark = 1024;

/**
 * Receives one streamed attempt through undici's dispatch handler API: bytes are decoded into `data`
 * payloads as they arrive (no Readable stream) and pushed to `events`; undici stops reading the socket
 * while the consumer lags `highWaterMark` events behind. After `[DONE]` the rest of the body is drained
 * unread, so the keep-alive socket returns to the pool.
 */
export class SseResponseHandler implements Dispatcher.DispatchHandler {
  /** Resolves when a 2xx head arrives, or when a non-2xx body is complete; rejects on a failure before. */
  readonly head: Promise<SseResponseHead>;
  /** The `data` payloads, `[DONE]` left out; a failure after the head is thrown as `mapError` maps it. */
  readonly events: AsyncQueue<string>;
  #resolveHead!: (head: SseResponseHead) => void;
  #rejectHead!: (error: unknown) => void;
  #headSettled = false;
  /** Called once when the events are over: `[DONE]`, the end of the body, a failure, or `close()`. */
  readonly #onFinish: () => void;
  /** Called on each network read of the body: restarts the idle timer. */
  readonly #onActivity: (() => void) | undefined;
  /** A 2xx that is not an event stream: its body is collected (up to a cap) to describe it. */
  #foreign = false;
  #foreignBytes = 0;
  #controller: Dispatcher.DispatchController | undefined;
  #statusCode = 0;
  #headers: BufferedResponse['headers'] = {};
  /** A non-2xx body, collected whole for the error. */
  #errorChunks: Buffer[] | undefined;
  readonly #decoder: SseDecoder;
  /** Why the attempt stopped before its request was sent (see `onRequestStart`). */
  #failure: Error | undefined;
  #finished = false;

  constructor({ mapError, onFinish, onActivity, onPause, maxEventBytes }: SseResponseHandlerOptions) {
    this.#onFinish = onFinish;
    this.#decoder = new SseDecoder({
      maxEventBytes,
      onTooLarge: (limit) =>
        new APIError(
          `A stream event is larger than maxStreamEventBytes (${limit} bytes); the stream was stopped.`,
          {
            type: 'stream_event_too_large',
          },
        ),
    });
    this.events = new AsyncQueue<string>({
      highWaterMark,
      mapError,
      // Not after [DONE]: the rest of the body is drained unread.
      onPause: () => {
        if (this.#finished) return;
        onPause?.();
        this.#controller?.pause();
      },
      onResume: () => {
        if (!this.#controller?.paused) return;
        onActivity?.();
        this.#controller.resume();
      },
      onReturn: () => this.close(),
    });
    this.#onActivity = onActivity;
    this.head = new Promise<SseResponseHead>((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
  }

  /** Stops the attempt now: the head or a pending read rejects with `reason`; the connection is dropped. */
  abort(reason: Error): void {
    if (this.#finished) return;
    this.events.clear();
    this.#fail(reason);
    this.#controller?.abort(reason);
  }

  /** The consumer quit early: no error for anyone, the unfinished response's connection is dropped. */
  close(): void {
    if (this.#finished) return;
    this.events.clear();
    this.#finish();
    this.events.end();
    this.#controller?.abort(new Error('The stream was closed by its consumer.'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while the request still waited for a socket: never send it.
    if (this.#failure !== undefined) controller.abort(this.#failure);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: BufferedResponse['headers'],
  ): void {
    this.#statusCode = statusCode;
    this.#headers = headers;
    if (statusCode < 200 || statusCode >= 300) {
      this.#errorChunks = [];
      return;
    }
    if (!isEventStream(headers['content-type'])) {
      // Described whole as an error once its body has arrived: never read as an empty stream.
      this.#errorChunks = [];
      this.#foreign = true;
      return;
    }
    this.#headSettled = true;
    this.#resolveHead({ statusCode, headers, text: undefined });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#errorChunks !== undefined) {
      if (this.#foreign) {
        if (this.#foreignBytes >= maxForeignBody) return;
        this.#foreignBytes += chunk.length;
      }
      this.#errorChunks.push(chunk);
      return;
    }
    // After [DONE] (or close/abort) the rest is drained unread.
    if (this.#finished) return;
    this.#onActivity?.();
    let events: string[];
    try {
      events = this.#decoder.decode(chunk);
    } catch (error) {
      this.abort(error as Error);
      return;
    }
    if (this.#decoder.done) this.#finish();
    this.events.pushAll(events);
    if (this.#finished) this.events.end();
  }

  /** True once `data: [DONE]` arrived (false for a body that just ended, or was cut). */
  get sawDone(): boolean {
    return this.#decoder.done;
  }

  onResponseEnd(): void {
    if (this.#errorChunks !== undefined) {
      const text = Buffer.concat(this.#errorChunks).toString('utf8');
      this.#errorChunks = undefined;
      this.#headSettled = true;
      const head: SseResponseHead = { statusCode: this.#statusCode, headers: this.#headers, text };
      if (this.#foreign) head.notEventStream = true;
      this.#resolveHead(head);
      return;
    }
    if (this.#finished) return;
    // A stream that ended without [DONE]: flush a last event that had no blank line after it.
    let rest: string[];
    try {
      rest = this.#decoder.end();
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    this.#finish();
    this.events.pushAll(rest);
    this.events.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: Error): void {
    if (!this.#headSettled) {
      this.#headSettled = true;
      this.#finished = true;
      this.#failure = error;
      this.#rejectHead(error);
      this.events.fail(error);
      return;
    }
    if (this.#finished) return;
    this.#failure = error;
    this.#finish();
    this.events.fail(error);
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#onFinish();
  }
}

/** True for `text/event-stream` (any parameters), and for a missing content type (read as events). */
function isEventStream(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  if (value === undefined || value.trim() === '') return true;
  return value.trim().toLowerCase().startsWith('text/event-stream');
}
