import type { SvcClient } from '../api/svc-client.js';
import type { WorkSignal } from './run-with-timeout.js';
import type { ToolContext } from './tool.js';

/**
 * The `ctx` a tool's `execute` gets. A class with `signal` as a prototype getter, not an object literal
 * with an accessor (V8 builds those through a slow path, about 25x dearer): the signal is created on first
 * read, since most tools never look at it.
 */
export class ToolCallContext<C> implements ToolContext<C> {
  readonly toolCallId: string;
  readonly context: C;
  readonly client: SvcClient | undefined;
  readonly #work: WorkSignal;

  constructor(toolCallId: string, work: WorkSignal, context: C, client: SvcClient | undefined) {
    this.toolCallId = toolCallId;
    this.#work = work;
    this.context = context;
    this.client = client;
  }

  /** Fires when the run is aborted or the call times out. */
  get signal(): AbortSignal {
    return this.#work.signal;
  }
}
