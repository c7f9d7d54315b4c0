import { type ApprovalDecision, checkApprovalDecisions } from '../agent/approval-decision.js';
import { ToolApprovalError } from '../agent/errors.js';
import type { RunState } from '../agent/run-state.js';
import { ConfigurationError } from '../core/errors.js';
import { ChatRequestError } from './web-error.js';

export type { ApprovalDecision } from '../agent/approval-decision.js';

/**
 * Checks `decisions` (the body field) and applies them to `state`; every waiting call needs one. An output
 * for a call the run already answered (the page posts every output it holds, or posts twice) is skipped,
 * never applied again; an output for a call the run never made is refused. Answers the decisions applied.
 */
export function applyDecisions(state: RunState, decisions: unknown): ApprovalDecision[] {
  let checked: ApprovalDecision[];
  try {
    checked = checkApprovalDecisions(decisions);
  } catch (error) {
    if (ConfigurationError.isInstance(error))
      throw new ChatRequestError({ status: 400, message: error.message });
    throw error;
  }
  const applied: ApprovalDecision[] = [];
  checked.forEach((d, i) => {
    if (Object.hasOwn(d, 'output') && !awaitsOutput(state, d.toolCallId) && madeByRun(state, d.toolCallId))
      return;
    applied.push(d);
    try {
      if (Object.hasOwn(d, 'output') && d.approved) state.supplyOutput(d.toolCallId, d.output);
      else if (d.approved) state.approve(d.toolCallId);
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
  return applied;
}

// Whether `toolCallId` is a client-side call of the paused turn still waiting for its output.
function awaitsOutput(state: RunState, toolCallId: string): boolean {
  return state.interruptions.some((item) => item.toolCallId === toolCallId && item.clientSide === true);
}

// Whether the run made the call (answered, running or pending): the page holds its output, nothing to apply.
function madeByRun(state: RunState, toolCallId: string): boolean {
  if (state.pendingToolCalls.some((call) => call.toolCallId === toolCallId)) return true;
  if (state.ledger.has(toolCallId)) return true;
  return state.messages.some((m) => m.role === 'tool' && m.tool_call_id === toolCallId);
}
