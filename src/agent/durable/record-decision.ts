import type { ApprovalDecision } from '../approval-decision.js';
import { RunConflictError, RunStateError, ToolApprovalError } from '../errors.js';
import type { ToolApprovalItem } from '../run-result.js';
import { type PendingToolCall, RunState } from '../run-state.js';
import type { RunStateJson } from '../run-state-schema.js';
import type { RunRecord, RunStore } from './store.js';

/** A decision on the call `toolCallId` names separately: the library's one `ApprovalDecision` without it. */
type Decision = Pick<ApprovalDecision, 'approved' | 'reason' | 'output'>;

/** What `decideRun` did: the record after the decision, and whether this call wrote it. */
export interface DecisionOutcome {
  record: RunRecord;
  /** False when the stored run already held this very decision (a repeated or re-sent call). */
  recorded: boolean;
}

// The tools are not needed to record a decision: whoever resumes the run checks them.
const anyOwner = { hasFunctionTool: () => true };

// Decisions on other calls of the run racing this one: each conflict means one of them landed.
const MAX_CONFLICT_RETRIES = 20;

/**
 * Records an approval or rejection in a stored, interrupted run (version-checked; once no call waits the
 * run is `running` again), without running anything: `agent.approve` then resumes the run, `queue.approve` re-enqueues it. Works on the stored
 * state through `RunState.approve/reject`, so a call inside an agent-as-tool's paused sub-run is decided
 * like a top-level one, and a process without the agent (a CLI, a web handler) can decide.
 */
export async function recordDecision(
  store: RunStore,
  runId: string,
  toolCallId: string,
  decision: Decision,
): Promise<RunRecord> {
  return (await decideRun(store, runId, toolCallId, decision)).record;
}

/**
 * `recordDecision`, saying whether the decision was written now. A conflict (another call of the run
 * decided at the same moment, or this write's reply was lost and it was re-sent) is read again: the
 * decision is retried while the call still waits, and taken as done when the stored run already holds
 * the same decision; a contradicting one is a `ToolApprovalError`.
 */
export async function decideRun(
  store: RunStore,
  runId: string,
  toolCallId: string,
  decision: Decision,
): Promise<DecisionOutcome> {
  for (let attempt = 0; ; attempt++) {
    const record = await store.getRun(runId);
    if (!record) throw new RunStateError(`No stored run "${runId}"`);
    const state = RunState.fromJSON(record.state as unknown as RunStateJson, anyOwner);
    const waiting = state.interruptions;
    if (record.status !== 'interrupted' || !waiting.some((item) => item.toolCallId === toolCallId)) {
      if (holdsDecision(state, toolCallId, decision)) return { record, recorded: false };
      const ids = record.status === 'interrupted' ? waiting.map((item) => item.toolCallId).join(', ') : '';
      throw new ToolApprovalError({
        toolCallId,
        message: `Run "${runId}" has no tool call "${toolCallId}" awaiting approval; waiting: ${ids || 'none'}`,
      });
    }
    // A client-side call is answered with its output (an output decision), never approved.
    if (decision.approved && Object.hasOwn(decision, 'output'))
      state.supplyOutput(toolCallId, decision.output);
    else if (decision.approved) state.approve(toolCallId);
    else state.reject(toolCallId, decision.reason);
    const { version, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = record;
    const interruptions = state.interruptions as ToolApprovalItem[];
    try {
      // The last decision makes the run ready to continue in the same write: a second write would leave a
      // moment where the record reads "interrupted" with nothing waiting, which a waiter would take as final.
      const written = await store.updateRun(runId, version, {
        ...input,
        status: interruptions.length > 0 ? 'interrupted' : 'running',
        state: state.toJSON() as unknown as Record<string, unknown>,
        interruptions,
      });
      return { record: written, recorded: true };
    } catch (error) {
      if (!RunConflictError.isInstance(error) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}

// Whether the stored state already has `decision` on `toolCallId` (in the run or a paused sub-run).
function holdsDecision(state: RunState, toolCallId: string, decision: Decision): boolean {
  const call = findCall(state.pendingToolCalls, toolCallId);
  if (!call) return false;
  if (decision.approved) return call.approval === 'approved';
  return (
    call.approval === 'rejected' &&
    (decision.reason === undefined || call.rejectionMessage === decision.reason)
  );
}

function findCall(calls: readonly PendingToolCall[], toolCallId: string): PendingToolCall | undefined {
  for (const call of calls) {
    if (call.toolCallId === toolCallId) return call;
    const inner = call.subRun && findCall(call.subRun.pendingToolCalls, toolCallId);
    if (inner) return inner;
  }
  return undefined;
}
