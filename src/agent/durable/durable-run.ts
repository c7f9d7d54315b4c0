import type { ToolApprovalItem } from '../run-result.js';
import type { RunState } from '../run-state.js';
import type { RunRecord, RunRecordInput, RunSessionLink, RunStatus, Store } from './store.js';

/** What the run loop calls on a durable run; absent on an ordinary in-memory run. */
export interface DurableHooks {
  /** Checkpoint after a model turn, just before its tools start (they are recorded as in flight). */
  beforeTools(state: RunState): Promise<void>;
  /** Checkpoint after one tool call finished (its outcome is in the ledger). */
  afterToolCall(state: RunState): Promise<void>;
}

/**
 * One stored run as this process drives it: every write names the version it last wrote, so a process
 * that lost the run to another (which resumed it) fails its next write with `RunConflictError` instead
 * of overwriting. Writes are chained: tool calls finishing together checkpoint one after another.
 */
export class DurableRun implements DurableHooks {
  readonly store: Store;
  readonly runId: string;
  readonly agentName: string;
  session: RunSessionLink | undefined;
  #version: number;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(options: { store: Store; record: RunRecord }) {
    const { store, record } = options;
    this.store = store;
    this.runId = record.id;
    this.agentName = record.agentName;
    this.session = record.session;
    this.#version = record.version;
  }

  async beforeTools(state: RunState): Promise<void> {
    await this.write(state, 'running', { inFlight: runnableIds(state) });
  }

  async afterToolCall(state: RunState): Promise<void> {
    await this.write(state, 'running', {
      inFlight: runnableIds(state).filter((id) => state.ledger.get(id) === undefined),
    });
  }

  /**
   * The run ended (completed) or paused (interrupted): append its new items to the session first
   * (under a key made of the run id and position, so a retry after a crash appends nothing twice),
   * then record the end. A paused run appends only up to the turn waiting for approval: the session
   * never holds a tool call without its answer, and the rest follows when the run completes.
   */
  async finish(
    state: RunState,
    status: 'completed' | 'interrupted',
    text: string,
    output: unknown,
  ): Promise<RunRecord> {
    const link = this.session;
    if (link) {
      const end = status === 'completed' ? state.messages.length : state.messages.length - 1;
      if (end > link.appended) {
        await this.store.addItems(link.id, state.messages.slice(link.appended, end), {
          idempotencyKey: `${this.runId}:${link.appended}`,
        });
        this.session = { ...link, appended: end };
      }
    }
    return this.write(
      state,
      status,
      status === 'completed' ? { text, ...(output !== undefined && { output }) } : {},
    );
  }

  /** The run failed: record why, with the state it can be resumed from. */
  fail(state: RunState, error: unknown): Promise<RunRecord> {
    return this.write(state, 'failed', { error: errorText(error) });
  }

  /** Writes a checkpoint after any write already queued. */
  write(
    state: RunState,
    status: RunStatus,
    extra: Partial<Pick<RunRecordInput, 'inFlight' | 'error' | 'text' | 'output'>>,
  ): Promise<RunRecord> {
    // The state is serialised now, not when the write's turn comes: later changes get their own write.
    const input: RunRecordInput = {
      id: this.runId,
      agentName: this.agentName,
      status,
      state: state.toJSON() as unknown as Record<string, unknown>,
      interruptions: status === 'interrupted' ? (state.interruptions as ToolApprovalItem[]) : [],
      ...(this.session && { session: this.session }),
      ...extra,
    };
    const written = this.#chain.then(async () => {
      const record = await this.store.updateRun(this.runId, this.#version, input);
      this.#version = record.version;
      return record;
    });
    // A failed write fails its caller; the chain itself goes on.
    this.#chain = written.catch(() => undefined);
    return written;
  }
}

// Calls that run (or are about to run) without waiting for a human.
function runnableIds(state: RunState): string[] {
  return state.pendingToolCalls
    .filter((call) => call.approval === 'none' || call.approval === 'approved')
    .map((call) => call.toolCallId);
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
