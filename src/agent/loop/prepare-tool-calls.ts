import type { ToolCall } from '../../api/types/chat.js';
import type { ParseArgumentsResult, ToolSet } from '../../tools/tool.js';
import { resolveNeedsApproval } from '../../tools/tool.js';
import { toolCallIdempotencyKey } from '../../tools/tool-call-context.js';
import type { AgentEvent } from '../events.js';
import type { PendingToolCall } from '../run-state.js';
import type { TurnToolContext } from './execute-turn-tools.js';
import { neverAborted } from './run-signal.js';

// Each call's arguments are parsed (JSON and schema) once, when the turn ends, and the result reused by the
// approval check and the execution. Keyed by the pending call object: a cloned or restored state parses anew.
const parsedArguments = new WeakMap<PendingToolCall, ParseArgumentsResult<unknown>>();

/** The parse result `prepareToolCalls` recorded for `call`, if this run made it. */
export function parsedArgumentsOf(call: PendingToolCall): ParseArgumentsResult<unknown> | undefined {
  return parsedArguments.get(call);
}

/**
 * Turns a finished turn's function calls into pending calls and emits `tool-call` for each. Arguments
 * are parsed here, once the stream has ended, never from a prefix that happens to be valid JSON; when
 * they do not parse (or the tool is unknown) `input` is the raw text and the tools layer tells the model.
 */
export function prepareToolCalls(
  calls: readonly ToolCall[],
  toolSet: ToolSet,
  emit: ((event: AgentEvent) => void) | undefined,
): PendingToolCall[] {
  // A plain loop, not `.map`: see recordStep.
  const prepared: PendingToolCall[] = [];
  for (const call of calls) {
    const toolName = call.function.name;
    const text = call.function.arguments;
    const parsed = toolSet.functions.get(toolName)?.parseArguments(text);
    const input = parsed?.ok ? parsed.value : text;
    emit?.({
      type: 'tool-call',
      toolCallId: call.id,
      toolName,
      input,
      ...(parsed?.ok ? {} : { invalid: true }),
    });
    const pending: PendingToolCall = {
      toolCallId: call.id,
      toolName,
      arguments: text,
      input,
      approval: 'none',
    };
    if (parsed !== undefined) parsedArguments.set(pending, parsed);
    prepared.push(pending);
  }
  return prepared;
}

/**
 * Whether any pending call's tool has an approval policy at all. Most tools have none: their turns skip
 * `requestApprovals` and its await per call.
 */
export function needsApprovalCheck(pending: readonly PendingToolCall[], toolSet: ToolSet): boolean {
  for (const call of pending) {
    const tool = toolSet.functions.get(call.toolName);
    if (tool?.clientSide) return true;
    const policy = tool?.needsApproval;
    if (policy !== undefined && policy !== false) return true;
  }
  return false;
}

/**
 * Asks each call's `needsApproval` and marks the calls that must wait for a human, emitting
 * `tool-approval-request` for them; a client-side tool's calls wait for their output. A call that cannot run (unknown tool, bad arguments) needs no
 * approval: the model is told why instead.
 */
export async function requestApprovals(
  pending: readonly PendingToolCall[],
  turn: TurnToolContext,
): Promise<void> {
  const { toolSet, emit } = turn;
  for (const call of pending) {
    const tool = toolSet.functions.get(call.toolName);
    if (!tool || !(parsedArgumentsOf(call) ?? tool.parseArguments(call.arguments)).ok) continue;
    // A client-side call waits for its output, the way an approval waits for a human (one paused state).
    if (tool.clientSide) {
      call.approval = 'pending';
      call.clientSide = true;
      continue;
    }
    const ctx = {
      toolCallId: call.toolCallId,
      signal: turn.signal ?? neverAborted,
      context: turn.context,
      client: turn.client,
      runId: turn.runId,
      idempotencyKey: toolCallIdempotencyKey(turn.runId, turn.step, call.toolCallId),
    };
    // A policy that throws cannot say the call is safe: a human decides instead.
    if (await resolveNeedsApproval(tool, call.input, ctx).catch(() => true)) call.approval = 'pending';
  }
  const now = Date.now();
  for (const call of pending) {
    if (call.approval === 'pending') call.approvalRequestedAt = now;
    // A client-side call was announced by its `tool-call` event; nobody approves it.
    if (call.approval !== 'pending' || call.clientSide) continue;
    emit?.({
      type: 'tool-approval-request',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
  }
}
