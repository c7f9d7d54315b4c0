import { ToolApprovalError } from '../errors/tool-approval-error.js';
import type { ToolApprovalItem } from '../run-result.js';
import { RunState, RunStateError } from '../run-state.js';
import type { RunStateJson } from '../run-state-schema.js';
import type { RunRecord, RunStore } from './store.js';

/** A human's decision on a call waiting for approval. */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string | undefined };

// The tools are not needed to record a decision: whoever resumes the run checks them.
const anyOwner = { hasFunctionTool: () => true };

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
  decision: ApprovalDecision,
): Promise<RunRecord> {
  const record = await store.getRun(runId);
  if (!record) throw new RunStateError(`No stored run "${runId}"`);
  const state = RunState.fromJSON(record.state as unknown as RunStateJson, anyOwner);
  const waiting = state.interruptions;
  if (record.status !== 'interrupted' || !waiting.some((item) => item.toolCallId === toolCallId)) {
    const ids = record.status === 'interrupted' ? waiting.map((item) => item.toolCallId).join(', ') : '';
    throw new ToolApprovalError({
      toolCallId,
      message: `Run "${runId}" has no tool call "${toolCallId}" awaiting approval; waiting: ${ids || 'none'}`,
    });
  }
  if (decision.approved) state.approve(toolCallId);
  else state.reject(toolCallId, decision.reason);
  const { version, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = record;
  const interruptions = state.interruptions as ToolApprovalItem[];
  // The last decision makes the run ready to continue in the same write: a second write would leave a
  // moment where the record reads "interrupted" with nothing waiting, which a waiter would take as final.
  return store.updateRun(runId, version, {
    ...input,
    status: interruptions.length > 0 ? 'interrupted' : 'running',
    state: state.toJSON() as unknown as Record<string, unknown>,
    interruptions,
  });
}
