import type { ChatMessage } from '../../api/types/chat.js';
import type { ToolSet } from '../../tools/tool.js';
import { GuardrailTripwireError } from '../guardrails/guardrail-tripwire-error.js';
import type { ToolApprovalItem } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { recoverInFlight } from './recover-in-flight.js';
import type { RunRecord, RunRecordInput, RunSessionLink, RunStatus, Store } from './store.js';

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
 * of overwriting. Writes are chained: tool calls finishing together checkpoint one after another.
 */
export class DurableRun implements DurableHooks {
  readonly store: Store;
  readonly runId: string;
  readonly agentName: string;
  session: RunSessionLink | undefined;
  #version: number;
  #chain: Promise<unknown> = Promise.resolve();
  #inFlight: readonly string[] | undefined;

  constructor(options: { store: Store; record: RunRecord }) {
    const { store, record } = options;
    this.store = store;
    this.runId = record.id;
    this.agentName = record.agentName;
    this.session = record.session;
    this.#version = record.version;
    this.#inFlight = record.inFlight;
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
    result: { text: string; output: unknown; lastAgent?: string | undefined },
  ): Promise<RunRecord> {
    const link = this.session;
    if (link?.input !== undefined) {
      const items = runItems(state, link, status);
      const done = link.done ?? 0;
      if (items.length > done) {
        await this.store.addItems(link.id, items.slice(done), { idempotencyKey: `${this.runId}:${done}` });
        this.session = { ...link, done: items.length };
      }
    } else if (link) {
      // A record written before runs kept their input: its items are found by position.
      const end = status === 'completed' ? state.messages.length : state.messages.length - 1;
      if (end > link.appended) {
        await this.store.addItems(link.id, state.messages.slice(link.appended, end), {
          idempotencyKey: `${this.runId}:${link.appended}`,
        });
        this.session = { ...link, appended: end };
      }
    }
    const { text, output, lastAgent } = result;
    return this.write(state, status, {
      ...(status === 'completed' && { text, ...(output !== undefined && { output }) }),
      ...(lastAgent !== undefined && { lastAgent }),
    });
  }

  /** The run failed: record why, with the state it can be resumed from. */
  fail(state: RunState, error: unknown): Promise<RunRecord> {
    const tripwire =
      GuardrailTripwireError.isInstance(error) && error.stage === 'input' ? error.guardrail : undefined;
    return this.write(state, 'failed', {
      error: errorText(error),
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

  /** Writes a checkpoint after any write already queued. */
  write(
    state: RunState,
    status: RunStatus,
    extra: Partial<
      Pick<RunRecordInput, 'inFlight' | 'error' | 'text' | 'output' | 'lastAgent' | 'inputTripwire'>
    >,
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
