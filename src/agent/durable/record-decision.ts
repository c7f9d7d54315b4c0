import { RunStateError } from '../errors/run-state-error.js';
import { ToolApprovalError } from '../errors/tool-approval-error.js';
import type { RunRecord, RunStore } from './store.js';

/** A human's decision on a call waiting for approval. */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string | undefined };

interface PendingJson {
  toolCallId: string;
  approval: string;
  rejectionMessage?: string;
}

/**
 * Records an approval or rejection in a stored, interrupted run (version-checked), without running
 * anything: `agent.approve` then resumes the run, `queue.approve` re-enqueues it. Works on the stored
 * JSON, so a process without the agent (a CLI, a web handler) can decide.
 */
export async function recordDecision(
  store: RunStore,
  runId: string,
  toolCallId: string,
  decision: ApprovalDecision,
): Promise<RunRecord> {
  const record = await store.getRun(runId);
  if (!record) throw new RunStateError(`No stored run "${runId}"`);
  const pending = (record.state.pendingToolCalls ?? []) as PendingJson[];
  const call = pending.find((candidate) => candidate.toolCallId === toolCallId);
  if (record.status !== 'interrupted' || !call || call.approval !== 'pending') {
    const waiting = record.interruptions.map((item) => item.toolCallId).join(', ') || 'none';
    throw new ToolApprovalError({
      toolCallId,
      message: `Run "${runId}" has no tool call "${toolCallId}" awaiting approval; waiting: ${waiting}`,
    });
  }
  call.approval = decision.approved ? 'approved' : 'rejected';
  if (!decision.approved && decision.reason !== undefined) call.rejectionMessage = decision.reason;
  const { version, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = record;
  return store.updateRun(runId, version, {
    ...input,
    interruptions: record.interruptions.filter((item) => item.toolCallId !== toolCallId),
  });
}
