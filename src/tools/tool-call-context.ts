import type { SvcClient } from '../api/svc-client.js';
import type { WorkSignal } from './run-with-timeout.js';
import type { ToolContext } from './tool.js';

/**
 * The `ctx` a tool's `execute` gets. A class with `signal` as a prototype getter, not an object literal
 * with an accessor (V8 builds those through a slow path; bench/results/2026-11-22.md, row 2a28a32): the signal is created on first
 * read, since most tools never look at it.
 */
export class ToolCallContext<C> implements ToolContext<C> {
  readonly toolCallId: string;
  readonly context: C;
  readonly client: SvcClient | undefined;
  readonly runId: string | undefined;
  readonly #work: WorkSignal;
  readonly #step: number | undefined;

  constructor(
    toolCallId: string,
    work: WorkSignal,
    context: C,
    client: SvcClient | undefined,
    runId?: string,
    step?: number,
  ) {
    this.toolCallId = toolCallId;
    this.#work = work;
    this.context = context;
    this.client = client;
    this.runId = runId;
    this.#step = step;
  }

  /** `runId:step:toolCallId`: the same for every retry and resume of this call, different in any other run. */
  get idempotencyKey(): string {
    return toolCallIdempotencyKey(this.runId, this.#step, this.toolCallId);
  }

  /** Fires when the run is aborted or the call times out. */
  get signal(): AbortSignal {
    return this.#work.signal;
  }
}

/**
 * A tool call's idempotency key: `runId:step:toolCallId`, the same for every retry and resume of the call
 * and different in any other run; the call id alone outside a run.
 */
export function toolCallIdempotencyKey(
  runId: string | undefined,
  step: number | undefined,
  toolCallId: string,
): string {
  if (runId === undefined) return toolCallId;
  return `${runId}:${step ?? 0}:${toolCallId}`;
}
