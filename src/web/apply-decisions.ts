import { ToolApprovalError } from '../agent/errors.js';
import type { RunState } from '../agent/run-state.js';
import { ChatRequestError } from './web-error.js';

/** A human's decision about one call a paused run waits for. */
export interface ApprovalDecision {
  toolCallId: string;
  /** True runs the call; false rejects it (the model is told, with `reason`). */
  approved: boolean;
  /** Why it was rejected, told to the model. */
  reason?: string;
}

/** Checks `decisions` (the body field) and applies them to `state`; every waiting call needs one. */
export function applyDecisions(state: RunState, decisions: unknown): void {
  if (!Array.isArray(decisions) || decisions.length === 0)
    throw new ChatRequestError({ status: 400, message: 'decisions: must be a non-empty array' });
  decisions.forEach((decision: unknown, i) => {
    const d = decision as Partial<ApprovalDecision> | null;
    if (typeof d?.toolCallId !== 'string')
      throw new ChatRequestError({ status: 400, message: `decisions[${i}].toolCallId: required string` });
    if (typeof d.approved !== 'boolean')
      throw new ChatRequestError({ status: 400, message: `decisions[${i}].approved: required boolean` });
    if (d.reason !== undefined && typeof d.reason !== 'string')
      throw new ChatRequestError({ status: 400, message: `decisions[${i}].reason: must be a string` });
    try {
      if (d.approved) state.approve(d.toolCallId);
      else state.reject(d.toolCallId, d.reason ?? 'The user declined this action.');
    } catch (error) {
      if (error instanceof ToolApprovalError)
        throw new ChatRequestError({ status: 409, message: `decisions[${i}].toolCallId: ${error.message}` });
      throw error;
    }
  });
  const missing = state.interruptions.map((item) => item.toolCallId);
  if (missing.length > 0)
    throw new ChatRequestError({
      status: 400,
      message: `decisions: missing a decision for ${missing.join(', ')}`,
    });
}
