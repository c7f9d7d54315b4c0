import type { ChunkUpdate } from '../../api/chat/chunk-update.js';
import { addAbortListener, removeAbortListener } from '../../core/abort-listeners.js';
import { executeScopedToolCall } from '../../tools/execute-tool-call.js';
import type { Tool, ToolCallOutcome } from '../../tools/tool.js';
import type { PendingToolCall } from '../run-state.js';
import type { TurnToolContext } from './execute-turn-tools.js';

/** A call of the streaming turn, as the updates have shown it so far. */
interface StreamedCall {
  id: string;
  name: string;
  text: string;
  /** Set once it started early; `stale` when later fragments changed the arguments it started with. */
  run?: EarlyRun;
  /** Stops trying once a start was attempted (the arguments did not parse, or no slot was free). */
  closed: boolean;
}

interface EarlyRun {
  name: string;
  text: string;
  controller: AbortController;
  outcome: Promise<ToolCallOutcome>;
  stale: boolean;
  /** When it started (epoch ms), recorded on the call that claims it. */
  startedAt: number;
}

/**
 * A starter for this turn when some tool may start before the stream ends: idempotent (running a call
 * twice is harmless, so a start on arguments that later change is only wasted work) and never needing
 * approval. Otherwise `undefined`, and the turn runs exactly as without this feature.
 */
export function createEagerToolStarter(turn: TurnToolContext): EagerToolStarter | undefined {
  for (const tool of turn.toolSet.functions.values()) {
    if (mayStartEarly(tool)) return new EagerToolStarter(turn);
  }
  return undefined;
}

function mayStartEarly(tool: Tool): boolean {
  return tool.idempotent && tool.needsApproval === false && !tool.clientSide;
}

/**
 * Starts idempotent tools while the model still streams, as soon as a call's arguments are complete:
 * when the next call begins or the choice finishes, or when the arguments so far form a JSON object the
 * tool's schema accepts (a complete value, never a repaired prefix). The loop then `claim`s each early
 * run whose id, name and arguments text equal the final call's; anything else is aborted by `discard`
 * and the call runs the usual way. Events and history do not change: a claimed outcome is reported and
 * recorded where the tool would have run.
 */
export class EagerToolStarter {
  // The turn's tool context: its signal (aborting the run stops the early calls too), its concurrency (at
  // most this many calls start early), and what `ctx` of an early call holds.
  readonly #turn: TurnToolContext;
  readonly #calls: StreamedCall[] = [];
  readonly #runs = new Map<string, EarlyRun>();

  constructor(turn: TurnToolContext) {
    this.#turn = turn;
  }

  /** Takes in one update of the streamed turn (choice 0 only: the agent never asks for more). */
  observe(update: ChunkUpdate): void {
    if (update.choice !== 0) return;
    switch (update.kind) {
      case 'tool-call-start':
        // Calls stream one after another: a new one means the earlier ones are complete.
        for (let i = 0; i < update.callPosition; i++) this.#close(i);
        this.#calls[update.callPosition] = { id: update.id, name: update.name, text: '', closed: false };
        break;
      case 'tool-call-delta': {
        const call = this.#calls[update.callPosition];
        if (!call) return;
        call.id = update.id;
        call.name = update.name;
        if (!update.argumentsDelta) return;
        call.text += update.argumentsDelta;
        if (call.run) {
          // The arguments changed after the start: that result can never be claimed.
          call.run.stale = true;
          call.run.controller.abort();
        } else if (!call.closed && endsObject(call.text)) {
          this.#tryStart(call, false);
        }
        break;
      }
      case 'finish':
        for (let i = 0; i < this.#calls.length; i++) this.#close(i);
        break;
      default:
        break;
    }
  }

  /**
   * The early outcome for `call` when one was started with exactly its id, name and arguments; the run
   * then belongs to the caller, who records it (in the ledger) like any other outcome.
   */
  claim(call: PendingToolCall): Promise<ToolCallOutcome> | undefined {
    const run = this.#runs.get(call.toolCallId);
    if (!run || run.stale || run.name !== call.toolName || run.text !== call.arguments) return undefined;
    this.#runs.delete(call.toolCallId);
    call.startedAt = run.startedAt;
    call.eager = true;
    return run.outcome;
  }

  /** Aborts every early run nobody claimed (arguments changed, the turn failed, or it was not needed). */
  discard(): void {
    for (const run of this.#runs.values()) run.controller.abort();
    this.#runs.clear();
  }

  #close(position: number): void {
    const call = this.#calls[position];
    if (call && !call.closed && !call.run) this.#tryStart(call, true);
  }

  /** Starts `call` when its tool may start early and its arguments parse; `complete`: no more will come. */
  #tryStart(call: StreamedCall, complete: boolean): void {
    const tool = this.#turn.toolSet.functions.get(call.name);
    if (!tool || !mayStartEarly(tool) || this.#runs.has(call.id)) {
      call.closed = true;
      return;
    }
    const parsed = tool.parseArguments(call.text);
    if (!parsed.ok) {
      // Complete but invalid: the usual path tells the model. A prefix may still grow into valid JSON.
      if (complete) call.closed = true;
      return;
    }
    call.closed = true;
    const turn = this.#turn;
    if (this.#runs.size >= turn.concurrency) return;
    const { signal } = turn;
    // The call's own controller stops it when the run aborts, the arguments change or nobody claims it.
    // Subscribed to the run's signal only while the call runs: an `AbortSignal.any` of the two would be
    // kept alive by Node for as long as the tool's guard listens to it, which for a run that ends without
    // aborting is forever.
    const controller = new AbortController();
    const onRunAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onRunAbort();
    else if (signal) addAbortListener(signal, onRunAbort);
    const outcome = executeScopedToolCall(
      turn,
      { id: call.id, type: 'function', function: { name: call.name, arguments: call.text } },
      controller.signal,
      undefined,
      parsed,
    );
    // Settled, the call no longer listens to the run; a discarded run's failure is nobody's to report.
    if (signal) {
      const unsubscribe = () => removeAbortListener(signal, onRunAbort);
      outcome.then(unsubscribe, unsubscribe);
    }
    const run: EarlyRun = {
      name: call.name,
      text: call.text,
      controller,
      outcome,
      stale: false,
      startedAt: Date.now(),
    };
    call.run = run;
    this.#runs.set(call.id, run);
  }
}

/** Arguments are a JSON object: only text ending in `}` can be a complete one, so only it is parsed. */
function endsObject(text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    // Space, tab, newline, carriage return.
    if (code === 32 || code === 9 || code === 10 || code === 13) continue;
    return code === 125;
  }
  return false;
}
