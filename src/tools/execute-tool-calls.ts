import type { ToolCall } from '../api/types/chat.js';
import { SvcError } from '../transport/errors/svc-error.js';
import { type ExecuteToolCallOptions, executeToolCall } from './execute-tool-call.js';
import type { ToolCallOutcome } from './tool.js';
import { ToolCallLedger } from './tool-call-ledger.js';

/** Default number of tool calls of one turn that run at the same time. */
export const DEFAULT_TOOL_CONCURRENCY = 8;

/** Options of `executeToolCalls`: those of `executeToolCall` without `call`, plus a concurrency limit. */
export interface ExecuteToolCallsOptions<C = unknown> extends Omit<ExecuteToolCallOptions<C>, 'call'> {
  /** How many calls run at once. @default 8 */
  concurrency?: number;
}

/**
 * Runs the tool calls of one turn in parallel, at most `concurrency` at a time, and answers their outcomes in
 * the order of `calls`. A repeated `tool_call_id` runs once (through `ledger`, or a ledger of this batch).
 */
export async function executeToolCalls<C>(
  calls: readonly ToolCall[],
  options: ExecuteToolCallsOptions<C>,
): Promise<ToolCallOutcome[]> {
  const { concurrency = DEFAULT_TOOL_CONCURRENCY, ledger = new ToolCallLedger(), ...rest } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new SvcError(`concurrency: must be an integer >= 1, got ${String(concurrency)}`);
  }
  const outcomes = new Array<ToolCallOutcome>(calls.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    // After a fatal failure (toolErrors: 'throw') no further call is started.
    while (!failed && next < calls.length) {
      const index = next++;
      try {
        outcomes[index] = await executeToolCall({ ...rest, ledger, call: calls[index]! });
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return outcomes;
}
