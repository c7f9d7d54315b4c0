import type { ServerResponse } from 'node:http';
import { EventEmitter } from 'eventemitter3';
import { RuntimeConditionError, UserError } from '../core/errors.js';
import { AsyncQueue } from '../transport/async-queue.js';
import { toAgentEventFrame } from './agent-event-json.js';
import type { AgentEvent, AgentEventMap } from './events.js';
import type { RunResult } from './run-result.js';
import { pipeSseToNode } from './server-sse/pipe-sse-to-node.js';
import type { SseFrame } from './server-sse/sse-frame.js';
import type { SseStreamOptions } from './server-sse/sse-stream-options.js';
import { type SseSource, toSseResponse } from './server-sse/sse-writer.js';

/** What the stream hands to the run it drives. */
export interface AgentStreamControls {
  emit: (event: AgentEvent) => void;
  signal: AbortSignal;
}

/** Options of an `AgentStream`. */
export interface AgentStreamOptions {
  /** The caller's signal; aborting it aborts the run. */
  signal?: AbortSignal | undefined;
}

/**
 * A running agent: an `AsyncIterable<AgentEvent>` (iterate once), a typed eventemitter3 emitter
 * (`stream.on('text-delta', (event) => ...)`, `'event'` for all of them), `result`, and `abort()`.
 * On failure the `error` event (or `abort`) is delivered, then iteration throws and `result` rejects
 * with the same error. `result` never causes an unhandled rejection when nobody awaits it. Breaking out
 * of a `for await` aborts the run.
 */
export class AgentStream<Output = undefined>
  extends EventEmitter<AgentEventMap>
  implements AsyncIterable<AgentEvent>
{
  /** The run's result; rejects with the run's error (which carries `error.state`). */
  readonly result: Promise<RunResult<Output>>;
  readonly #controller = new AbortController();
  /** The events for the iterator; a consumer that breaks out aborts the run and waits for its end. */
  readonly #events = new AsyncQueue<AgentEvent>({
    onReturn: async () => {
      this.abort(new RuntimeConditionError('The consumer stopped iterating the agent stream.'));
      await this.result.catch(() => undefined);
    },
  });
  #iterated = false;

  constructor(
    run: (controls: AgentStreamControls) => Promise<RunResult<Output>>,
    options: AgentStreamOptions = {},
  ) {
    super();
    const outer = options.signal;
    const onOuterAbort = () => this.abort(outer?.reason);
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const signal = this.#controller.signal;
    // Started on the next microtask so listeners attached right after `agent.stream()` see `start`.
    this.result = Promise.resolve()
      .then(() => run({ emit: (event) => this.#push(event), signal }))
      .then(
        (result) => {
          this.#events.end();
          return result;
        },
        (error: unknown) => {
          this.#push(signal.aborted ? { type: 'abort', reason: signal.reason } : { type: 'error', error });
          this.#events.fail(error);
          throw error;
        },
      )
      .finally(() => outer?.removeEventListener('abort', onOuterAbort));
    this.result.catch(() => {});
  }

  /** Aborts the run: the HTTP stream and running tools stop; the run ends with an `abort` event. */
  abort(reason?: unknown): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  /**
   * The run's events as a Web `Response` (`text/event-stream`, one JSON `AgentEvent` per `data:`, ids from
   * 0, `retry:` and heartbeats) for Hono, Next.js route handlers, Bun, Deno; iterates the stream. When the
   * client disconnects the run is aborted, as with `abort()`.
   */
  toResponse(options: SseStreamOptions = {}): Response {
    return toSseResponse(this.#sseSource(), options);
  }

  /** Streams the run's events as SSE into a Node `http.ServerResponse` (or Express's); see `toResponse`. */
  pipeTo(res: ServerResponse, options: SseStreamOptions = {}): Promise<void> {
    return pipeSseToNode(this.#sseSource(), res, options);
  }

  #sseSource(): SseSource {
    const events = this[Symbol.asyncIterator]();
    let index = 0;
    const frames: AsyncIterator<SseFrame> = {
      next: () =>
        events
          .next()
          .then((step) =>
            step.done ? step : { done: false, value: toAgentEventFrame(step.value, index++) },
          ),
      return: async () => {
        await events.return?.();
        return { done: true, value: undefined };
      },
    };
    return {
      frames: { [Symbol.asyncIterator]: () => frames },
      onCancel: (reason) => this.abort(reason),
    };
  }

  /** Iterates the run's events in order; can be iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#iterated)
      throw new UserError('An AgentStream can be iterated only once; use stream.on() for more listeners.');
    this.#iterated = true;
    return this.#events;
  }

  #push(event: AgentEvent): void {
    this.#events.push(event);
    // Every event of the run passes here; most streams are iterated, with no listener at all.
    if (this.listenerCount(event.type) > 0) {
      (this.emit as (type: string, event: AgentEvent) => boolean)(event.type, event);
    }
    if (this.listenerCount('event') > 0) this.emit('event', event);
  }
}
