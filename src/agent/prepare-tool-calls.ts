import type { SvcClient } from '../api/svc-client.js';
import type { ToolCall } from '../api/types/chat.js';
import { resolveNeedsApproval } from '../tools/resolve-needs-approval.js';
import type { ToolSet } from '../tools/tool.js';
import type { AgentEvent } from './events.js';
import type { PendingToolCall } from './run-state.js';

/**
 * Turns a finished turn's function calls into pending calls and emits `tool-call` for each. Arguments
 * are parsed here, once the stream has ended, never from a prefix that happens to be valid JSON; when
 * they do not parse (or the tool is unknown) `input` is the raw text and the tools layer tells the model.
 */
export function prepareToolCalls(
  calls: readonly ToolCall[],
  toolSet: ToolSet,
  emit: (event: AgentEvent) => void,
): PendingToolCall[] {
  return calls.map((call) => {
    const toolName = call.function.name;
    const text = call.function.arguments;
    const parsed = toolSet.functions.get(toolName)?.parseArguments(text);
    const input = parsed?.ok ? parsed.value : text;
    emit({ type: 'tool-call', toolCallId: call.id, toolName, input });
    return { toolCallId: call.id, toolName, arguments: text, input, approval: 'none' };
  });
}

/** Options of `requestApprovals`. */
export interface RequestApprovalsOptions {
  pending: PendingToolCall[];
  toolSet: ToolSet;
  context: unknown;
  client: SvcClient | undefined;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
}

/**
 * Asks each call's `needsApproval` and marks the calls that must wait for a human, emitting
 * `tool-approval-request` for them. A call that cannot run (unknown tool, bad arguments) needs no
 * approval: the model is told why instead.
 */
export async function requestApprovals(options: RequestApprovalsOptions): Promise<void> {
  const { pending, toolSet, emit } = options;
  for (const call of pending) {
    const tool = toolSet.functions.get(call.toolName);
    if (!tool?.parseArguments(call.arguments).ok) continue;
    const ctx = {
      toolCallId: call.toolCallId,
      signal: options.signal,
      context: options.context,
      client: options.client,
    };
    // A policy that throws cannot say the call is safe: a human decides instead.
    if (await resolveNeedsApproval(tool, call.input, ctx).catch(() => true)) call.approval = 'pending';
  }
  for (const call of pending) {
    if (call.approval !== 'pending') continue;
    emit({
      type: 'tool-approval-request',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
  }
}
