import { type ApprovalDecision, checkApprovalDecisions } from '../agent/approval-decision.js';
import { ToolApprovalError } from '../agent/errors.js';
import type { RunState } from '../agent/run-state.js';
import { ConfigurationError } from '../transport/errors.js';
import { ChatRequestError } from './web-error.js';

export type { ApprovalDecision } from '../agent/approval-decision.js';

/** Checks `decisions` (the body field) and applies them to `state`; every waiting call needs one. */
export function applyDecisions(state: RunState, decisions: unknown): void {
  let checked: ApprovalDecision[];
  try {
    checked = checkApprovalDecisions(decisions);
  } catch (error) {
    if (ConfigurationError.isInstance(error))
      throw new ChatRequestError({ status: 400, message: error.message });
    throw error;
  }
  checked.forEach((d, i) => {
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
