import type { SvcClient } from '../api/svc-client.js';
import type { ToolCall } from '../api/types/chat.js';
import { resolveNeedsApproval } from '../tools/resolve-needs-approval.js';
import type { ToolSet } from '../tools/tool.js';
import type { AgentEvent } from './events.js';
import type { PendingToolCall } from './run-state.js';

/** Options of `prepareToolCalls`. */
export interface PrepareToolCallsOptions {
  calls: readonly ToolCall[];
  toolSet: ToolSet;
  context: unknown;
  client: SvcClient | undefined;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** False at the turn limit: the calls will not run, so nobody is asked. @default true */
  resolveApprovals?: boolean;
}

/**
 * Turns a finished turn's function calls into pending calls: parses each call's arguments once the
 * stream has ended (never from a prefix), emits `tool-call`, and asks each tool's `needsApproval`,
 * emitting `tool-approval-request` for those that must wait for a human. A call whose tool is unknown
 * or whose arguments do not parse needs no approval: it cannot run and the model is told why.
 */
export async function prepareToolCalls(options: PrepareToolCallsOptions): Promise<PendingToolCall[]> {
  const { calls, toolSet, emit } = options;
  const pending: PendingToolCall[] = [];
  for (const call of calls) {
    const toolName = call.function.name;
    const text = call.function.arguments;
    const tool = toolSet.functions.get(toolName);
    const parsed = tool?.parseArguments(text);
    const input = parsed?.ok ? parsed.value : text;
    emit({ type: 'tool-call', toolCallId: call.id, toolName, input });
    let approval: PendingToolCall['approval'] = 'none';
    if (tool && parsed?.ok && options.resolveApprovals !== false) {
      const ctx = {
        toolCallId: call.id,
        signal: options.signal,
        context: options.context,
        client: options.client,
      };
      // A policy that throws cannot say the call is safe: a human decides instead.
      const needed = await resolveNeedsApproval(tool, input, ctx).catch(() => true);
      if (needed) approval = 'pending';
    }
    pending.push({ toolCallId: call.id, toolName, arguments: text, input, approval });
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
  return pending;
}
