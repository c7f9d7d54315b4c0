import type { DocumentSource, ToolCallOutcome } from '../../tools/tool.js';
import type { StepToolResult } from '../run-result.js';
import type { PendingToolCall, RunState } from '../run-state.js';

/**
 * Answers every pending call of the last turn with exactly one `tool` message, in call order, records
 * the results on the step that made the calls, and clears the pending list. Used when a turn's tools
 * are done, and also on abort and at the turn limit, so the history is always valid to send again.
 */
export function settlePendingCalls(
  state: RunState,
  resultFor: (call: PendingToolCall) => StepToolResult,
): StepToolResult[] {
  // Plain loops over the calls, not `.map`: see recordStep.
  const results: StepToolResult[] = [];
  for (const call of state.pendingToolCalls) {
    const result = withTimes(resultFor(call), call);
    results.push(result);
    state.messages.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
  }
  const step = state.steps.at(-1);
  if (step) step.toolResults = results;
  state.pendingToolCalls = [];
  return results;
}

/** A step result from a tools-layer outcome, with the documents it drew on when there are any. */
export function resultFromOutcome(outcome: ToolCallOutcome, sources?: DocumentSource[]): StepToolResult {
  const { toolCallId, toolName, input, status, output, content } = outcome;
  const result: StepToolResult = { toolCallId, toolName, input, status, output, content };
  if (sources) result.sources = sources;
  return result;
}

/** A call that never ran, answered with a short reason the model can read. */
export function unrunResult(
  call: PendingToolCall,
  status: StepToolResult['status'],
  content: string,
): StepToolResult {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    status,
    output: undefined,
    content,
  };
}

/** The call's times (tool start and end, approval asked and decided) carried onto its result. */
function withTimes(result: StepToolResult, call: PendingToolCall): StepToolResult {
  if (call.startedAt !== undefined) result.startedAt = call.startedAt;
  if (call.finishedAt !== undefined) result.finishedAt = call.finishedAt;
  if (call.eager) result.eager = true;
  const { approval } = call;
  if (call.approvalRequestedAt !== undefined && (approval === 'approved' || approval === 'rejected')) {
    result.approval = { requestedAt: call.approvalRequestedAt, decision: approval };
    if (call.decidedAt !== undefined) result.approval.decidedAt = call.decidedAt;
  }
  return result;
}
