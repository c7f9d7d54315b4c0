import type { ChatMessage } from '../../api/types/chat.js';
import type { ToolSet } from '../../tools/tool.js';
import { GuardrailTripwireError, RunConflictError, RunStateError } from '../errors.js';
import type { ToolApprovalItem } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { recoverInFlight } from './recover-in-flight.js';
import type {
  RunRecord,
  RunRecordInput,
  RunSessionLink,
  RunStatus,
  Store,
  WriteRunOptions,
} from './store.js';

/** What the run loop calls on a durable run; absent on an ordinary in-memory run. */
export interface DurableHooks {
  /** Checkpoint after a model turn, just before its tools start (they are recorded as in flight). */
  beforeTools(state: RunState): Promise<void>;
  /** Checkpoint after one tool call finished (its outcome is in the ledger). */
  afterToolCall(state: RunState): Promise<void>;
  /** On resume, before the pending calls run: settles the calls a stopped process left in flight. */
  recover?(state: RunState, toolSet: ToolSet): Promise<void>;
}

/**
 * One stored run as this process drives it: every write names the version it last wrote, so a process
 * that lost the run to another (which resumed it) fails its next write with `RunConflictError` instead
 * of overwriting. Writes are chained: tool calls finishing together checkpoint one after another. Once
 * the run's terminal write (failed, completed, interrupted) is queued, no other write follows it. Each
 * write has its own write id: a write that failed with anything but a conflict may still have landed
 * (its reply lost), so the next write first reads the run and, when the stored version is that write's,
 * goes on from it instead of conflicting with its own checkpoint.
 */
export class StoredRunWriter implements DurableHooks {
  readonly store: Store;
  readonly runId: string;
  readonly agentName: string;
  session: RunSessionLink | undefined;
  #version: number;
  #chain: Promise<unknown> = Promise.resolve();
  // Calls a stopped process left in flight, until `recover` has settled them.
  #inFlight: readonly string[] | undefined;
  // The session's history at the head of `state.messages`: left out of every record while still there.
  readonly #history: readonly ChatMessage[];
  #ended: RunStatus | undefined;
  // Fields of the record no write of the run changes, carried into each of them.
  readonly #kept: Pick<RunRecordInput, 'forkedFrom' | 'tenant'>;
  // The last write, when it failed without a conflict: the version it would have made, and its id.
  #unconfirmed: { version: number; writeId: string } | undefined;

  /** `state`: the run's state, whose first messages are the session's history when the record omits it. */
  constructor(options: { store: Store; record: RunRecord; state?: RunState }) {
    const { store, record, state } = options;
    this.store = store;
    this.runId = record.id;
    this.agentName = record.agentName;
    this.session = record.session;
    this.#version = record.version;
    this.#inFlight = record.inFlight;
    this.#kept = {
      ...(record.forkedFrom && { forkedFrom: record.forkedFrom }),
      ...(record.tenant !== undefined && { tenant: record.tenant }),
    };
    const link = record.session;
    this.#history = link?.historyOmitted && state ? state.messages.slice(0, link.start) : [];
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
   * The run ended (completed) or paused (interrupted): its new items go to the session and its end to
   * the record in one atomic write (`Store.commitRun`), so a crash or a store fault leaves both as they
   * were or both written, never the session ahead of the record. A paused run appends only up to the
   * turn waiting for approval: the session never holds a tool call without its answer, and the rest
   * follows when the run completes. A store without `commitRun` appends first (under a key made of the
   * run id and position, so a retry appends nothing twice), then writes the record.
   */
  async finish(
    state: RunState,
    status: 'completed' | 'interrupted',
    result: { text: string; output: unknown; lastAgent?: string | undefined },
  ): Promise<RunRecord> {
    const { text, output, lastAgent } = result;
    const extra = {
      ...(status === 'completed' && { text, ...(output !== undefined && { output }) }),
      ...(lastAgent !== undefined && { lastAgent }),
    };
    const append = this.session && newSessionItems(this.runId, state, this.session, status);
    if (!append) return this.write(state, status, extra);
    const { store } = this;
    if (store.commitRun) {
      const input = this.#recordInput(state, status, extra, append.link);
      const record = await this.#enqueue(status, (version, options) =>
        store.commitRun!(
          this.runId,
          version,
          input,
          { sessionId: append.link.id, items: append.items },
          options,
        ),
      );
      this.session = append.link;
      return record;
    }
    await store.addItems(append.link.id, append.items, { idempotencyKey: append.key });
    this.session = append.link;
    return this.write(state, status, extra);
  }

  /**
   * The run failed: record why, with the state it can be resumed from and the calls still in flight (a
   * resume answers them as interrupted instead of starting them again).
   */
  fail(state: RunState, error: unknown): Promise<RunRecord> {
    const tripwire =
      GuardrailTripwireError.isInstance(error) && error.stage === 'input' ? error.guardrail : undefined;
    const left = this.#inFlight;
    const inFlight = runnableIds(state).filter(
      (id) => state.ledger.get(id) === undefined && (state.ledger.has(id) || left?.includes(id) === true),
    );
    return this.write(state, 'failed', {
      error: errorText(error),
      inFlight,
      ...(tripwire !== undefined && { inputTripwire: tripwire }),
    });
  }

  /**
   * Settles the calls left in flight by the process that stopped, with the tools of the agent in charge
   * (after handoffs, and a `tools` function's answer for this step): called once, by the loop.
   */
  async recover(state: RunState, toolSet: ToolSet): Promise<void> {
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    await recoverInFlight(state, inFlight, toolSet);
  }

  /** Writes a checkpoint after any write already queued; refused once the run's terminal write is queued. */
  write(
    state: RunState,
    status: RunStatus,
    extra: Partial<
      Pick<RunRecordInput, 'inFlight' | 'error' | 'text' | 'output' | 'lastAgent' | 'inputTripwire'>
    >,
  ): Promise<RunRecord> {
    if (this.#ended !== undefined) return Promise.reject(this.#endedError());
    const input = this.#recordInput(state, status, extra, this.session);
    return this.#enqueue(status, (version, options) =>
      this.store.updateRun(this.runId, version, input, options),
    );
  }

  // The state is serialised now, not when the write's turn comes: later changes get their own write.
  #recordInput(
    state: RunState,
    status: RunStatus,
    extra: Partial<RunRecordInput>,
    session: RunSessionLink | undefined,
  ): RunRecordInput {
    const json = state.toJSON();
    const omit = this.#history.length > 0 && startsWith(state.messages, this.#history);
    return {
      id: this.runId,
      agentName: this.agentName,
      status,
      state: (omit
        ? { ...json, messages: json.messages.slice(this.#history.length) }
        : json) as unknown as Record<string, unknown>,
      interruptions: status === 'interrupted' ? (state.interruptions as ToolApprovalItem[]) : [],
      ...(session && { session: { ...session, historyOmitted: omit } }),
      ...this.#kept,
      ...extra,
    };
  }

  #enqueue(
    status: RunStatus,
    write: (version: number, options: WriteRunOptions) => Promise<RunRecord>,
  ): Promise<RunRecord> {
    if (this.#ended !== undefined) return Promise.reject(this.#endedError());
    if (status !== 'running') this.#ended = status;
    const written = this.#chain.then(async () => {
      await this.#confirmUnconfirmed();
      const version = this.#version;
      const writeId = crypto.randomUUID();
      try {
        const record = await write(version, { writeId });
        this.#version = record.version;
        return record;
      } catch (error) {
        if (!RunConflictError.isInstance(error)) this.#unconfirmed = { version: version + 1, writeId };
        throw error;
      }
    });
    // A failed write fails its caller; the chain itself goes on.
    this.#chain = written.catch(() => undefined);
    return written;
  }

  // A failed write whose reply was lost landed all the same: the run is at its version, by its write id.
  async #confirmUnconfirmed(): Promise<void> {
    const unconfirmed = this.#unconfirmed;
    if (unconfirmed === undefined) return;
    const record = await this.store.getRun(this.runId);
    this.#unconfirmed = undefined;
    if (record?.version === unconfirmed.version && record.writeId === unconfirmed.writeId) {
      this.#version = record.version;
    }
  }

  #endedError(): RunStateError {
    return new RunStateError(
      `Run "${this.runId}" already wrote its final record (${this.#ended}): no checkpoint may follow it`,
    );
  }
}

/** The items a run appends to its session when it ends or pauses, with the link as it is afterwards. */
function newSessionItems(
  runId: string,
  state: RunState,
  link: RunSessionLink,
  status: 'completed' | 'interrupted',
): { items: ChatMessage[]; key: string; link: RunSessionLink } | undefined {
  if (link.input !== undefined) {
    const items = runItems(state, link, status);
    const done = link.done ?? 0;
    if (items.length <= done) return undefined;
    return { items: items.slice(done), key: `${runId}:${done}`, link: { ...link, done: items.length } };
  }
  // A record written before runs kept their input: its items are found by position.
  const end = status === 'completed' ? state.messages.length : state.messages.length - 1;
  if (end <= link.appended) return undefined;
  return {
    items: state.messages.slice(link.appended, end),
    key: `${runId}:${link.appended}`,
    link: { ...link, appended: end },
  };
}

// Identity, not equality: the same message objects, cheap to check on every checkpoint.
function startsWith(messages: readonly ChatMessage[], head: readonly ChatMessage[]): boolean {
  if (messages.length < head.length) return false;
  for (let i = 0; i < head.length; i++) if (messages[i] !== head[i]) return false;
  return true;
}

/**
 * The run's own items, rebuilt from its input and steps (not from positions in `state.messages`, which a
 * handoff filter or the context window may have shortened): each step's assistant message and its tool
 * answers, in call order. A paused run's last turn waits for approval: it is left for later. An answer
 * that was sent back for repair (structured output, an output guardrail) is not the run's answer: only
 * the final one is kept, without the correction request.
 */
function runItems(state: RunState, link: RunSessionLink, status: 'completed' | 'interrupted'): ChatMessage[] {
  const items: ChatMessage[] = [...(link.input ?? [])];
  const steps = state.steps.slice(link.firstStep ?? 0);
  const last = steps.at(-1);
  if (status === 'interrupted' && state.pendingToolCalls.length > 0) steps.pop();
  for (const step of steps) {
    if (step.toolCalls.length === 0 && step !== last) continue;
    items.push(step.message);
    for (const result of step.toolResults) {
      items.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
    }
  }
  return items;
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
