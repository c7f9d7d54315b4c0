import { toAgentEventFrame } from '../agent/agent-event-json.js';
import type { AgentStream } from '../agent/agent-stream.js';
import type { RunResult } from '../agent/run-result.js';
import type { SseFrame } from '../agent/server-sse/sse-frame.js';

/** Options of a `RunLog`. */
export interface RunLogOptions {
  /** A running run nobody listens to for this long is aborted (its tools cancelled). @default 60_000 */
  abandonAfterMs?: number;
}

/**
 * The events of one run in progress, kept so a client can reconnect by run id and `Last-Event-ID`: every
 * frame is recorded as it happens; a subscriber gets those after its last id, then the live ones, and
 * its iteration ends with the run. A run left without any subscriber for `abandonAfterMs` is aborted.
 */
export class RunLog {
  readonly frames: SseFrame[] = [];
  /** The run's outcome; never rejects (a failure resolves to `undefined`). */
  readonly done: Promise<RunResult<unknown> | undefined>;
  #ended = false;
  readonly #wakers = new Set<() => void>();
  #listeners = 0;
  #abandonTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #stream: AgentStream<unknown>;
  readonly #abandonAfterMs: number;

  constructor(stream: AgentStream<unknown>, options: RunLogOptions = {}) {
    this.#stream = stream;
    this.#abandonAfterMs = options.abandonAfterMs ?? 60_000;
    // Iterated rather than listened to, so the stream does not also queue every event for a reader.
    this.done = (async () => {
      try {
        for await (const event of stream) {
          this.frames.push(toAgentEventFrame(event, this.frames.length));
          this.#wake();
        }
      } catch {
        // The failure is in the log as its `error` or `abort` frame.
      }
      return stream.result.catch(() => undefined);
    })();
    void this.done.then(() => {
      this.#ended = true;
      if (this.#abandonTimer) clearTimeout(this.#abandonTimer);
      this.#wake();
    });
    this.#scheduleAbandon();
  }

  /** True once the run ended (completed, paused, failed or aborted). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Aborts the run. */
  abort(reason?: unknown): void {
    this.#stream.abort(reason);
  }

  /** The frames after event id `after` (all when undefined), then live ones until the run ends. */
  subscribe(after?: number): AsyncIterable<SseFrame> {
    let index = after === undefined || !Number.isInteger(after) || after < 0 ? 0 : after + 1;
    let closed = false;
    let wake: (() => void) | undefined;
    this.#listeners++;
    if (this.#abandonTimer) clearTimeout(this.#abandonTimer);
    const close = () => {
      if (closed) return;
      closed = true;
      if (wake) this.#wakers.delete(wake);
      wake?.();
      if (--this.#listeners === 0) this.#scheduleAbandon();
    };
    const iterator: AsyncIterator<SseFrame> = {
      next: async () => {
        for (;;) {
          if (closed) return { done: true, value: undefined };
          const frame = this.frames[index];
          if (frame) {
            index++;
            return { done: false, value: frame };
          }
          if (this.#ended) {
            close();
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            this.#wakers.add(resolve);
          });
        }
      },
      return: async () => {
        close();
        return { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const wake of wakers) wake();
  }

  #scheduleAbandon(): void {
    if (this.#ended || this.#listeners > 0) return;
    this.#abandonTimer = setTimeout(
      () => this.#stream.abort(new Error('No client listened to this run; it was abandoned.')),
      this.#abandonAfterMs,
    );
    this.#abandonTimer.unref?.();
  }
}
