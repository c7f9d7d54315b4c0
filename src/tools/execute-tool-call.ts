import type { SvcClient } from '../api/svc-client.js';
import type { ToolCall } from '../api/types/chat.js';
import { NoSuchToolError } from './errors/no-such-tool-error.js';
import { ToolExecutionError } from './errors/tool-execution-error.js';
import { ToolSuspendedError } from './errors/tool-suspended-error.js';
import { ToolTimeoutError } from './errors/tool-timeout-error.js';
import { formatToolOutput } from './format-tool-output.js';
import { runWithTimeout } from './run-with-timeout.js';
import { safeErrorMessage } from './safe-error-message.js';
import type { ParseArgumentsResult, ToolCallOutcome, ToolSet } from './tool.js';
import { ToolCallContext } from './tool-call-context.js';
import type { ToolCallLedger } from './tool-call-ledger.js';

/** What to do when a tool's `execute` throws: tell the model (default) or fail the run. */
export type ToolErrorMode = 'model' | 'throw';

/** Options of `executeToolCall`. */
export interface ExecuteToolCallOptions<C = unknown> {
  /** The tools of the run. */
  toolSet: ToolSet;
  /** The call the model asked for. */
  call: ToolCall;
  /** The run's user context, passed to the tool as `ctx.context`. */
  context?: C;
  /** The client, passed to the tool as `ctx.client`. */
  client?: SvcClient | undefined;
  /** The run's abort signal; the tool's own signal also fires on its timeout. */
  signal?: AbortSignal | undefined;
  /** `model`: a throwing tool becomes an `Error in <tool>: ...` message; `throw`: a `ToolExecutionError`. @default 'model' */
  toolErrors?: ToolErrorMode;
  /** Records the call so its id never runs twice. */
  ledger?: ToolCallLedger | undefined;
  /** The call's arguments as the tool's `parseArguments` already parsed them (parsed here otherwise). */
  parsedArguments?: ParseArgumentsResult<unknown> | undefined;
  /** The agent run this call belongs to, passed to the tool as `ctx.runId`. */
  runId?: string | undefined;
  /** Index of the run's step (turn) that made the call; part of `ctx.idempotencyKey`. */
  step?: number | undefined;
}

/**
 * Runs one tool call and describes how it went. Model mistakes (unknown tool, bad arguments), a throwing
 * tool, a timeout and an abort all become an outcome whose `content` is the `tool` message for the model;
 * only `toolErrors: 'throw'` turns a throwing tool into a rejection.
 */
export function executeToolCall<C>(options: ExecuteToolCallOptions<C>): Promise<ToolCallOutcome> {
  const { ledger, call } = options;
  return ledger ? ledger.run(call.id, () => runToolCall(options)) : runToolCall(options);
}

async function runToolCall<C>(options: ExecuteToolCallOptions<C>): Promise<ToolCallOutcome> {
  const { toolSet, call, signal, toolErrors = 'model' } = options;
  const toolName = call.function.name;
  const argumentsText = call.function.arguments ?? '';
  const base = { toolCallId: call.id, toolName, output: undefined, executed: false };

  const tool = toolSet.functions.get(toolName);
  if (!tool) {
    const error = new NoSuchToolError({ toolName, availableTools: [...toolSet.functions.keys()] });
    return { ...base, input: argumentsText, status: 'no-such-tool', content: error.message, error };
  }
  const parsed = options.parsedArguments ?? tool.parseArguments(argumentsText);
  if (!parsed.ok) {
    return {
      ...base,
      input: argumentsText,
      status: 'invalid-arguments',
      content: parsed.error.message,
      error: parsed.error,
    };
  }
  const input = parsed.value;
  if (signal?.aborted)
    return { ...base, input, status: 'aborted', content: cancelledText(toolName), error: reasonOf(signal) };

  const result = await runWithTimeout({
    signal,
    timeoutMs: tool.timeoutMs,
    createTimeoutError: () =>
      new ToolTimeoutError({ toolName, toolCallId: call.id, timeoutMs: tool.timeoutMs }),
    run: (work) =>
      tool.execute(
        input,
        new ToolCallContext(call.id, work, options.context as C, options.client, options.runId, options.step),
      ),
  });
  if (result.status === 'ok') {
    // The common outcome, built in one literal (no spread of `base`).
    return {
      toolCallId: call.id,
      toolName,
      input,
      executed: true,
      status: 'ok',
      output: result.value,
      content: formatToolOutput(result.value),
    };
  }
  const started = { ...base, input, executed: true };
  switch (result.status) {
    case 'timeout':
      return {
        ...started,
        status: 'timeout',
        content: `${result.error.message}; the call was stopped.`,
        error: result.error,
      };
    case 'aborted':
      return {
        ...started,
        status: 'aborted',
        content: cancelledText(toolName),
        error: toError(result.error),
      };
    default: {
      // Not done, only waiting: an unexecuted outcome, which the ledger forgets, so a resume runs it again.
      if (ToolSuspendedError.isInstance(result.error)) {
        return { ...base, input, status: 'aborted', content: result.error.message, error: result.error };
      }
      const error = new ToolExecutionError({
        toolName,
        toolCallId: call.id,
        message: safeErrorMessage(result.error),
        cause: result.error,
      });
      if (toolErrors === 'throw') throw error;
      return { ...started, status: 'error', content: error.message, error };
    }
  }
}

function cancelledText(toolName: string): string {
  return `Tool ${toolName} was cancelled: the run was aborted.`;
}

function reasonOf(signal: AbortSignal): Error {
  return toError(signal.reason);
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value ?? 'aborted'));
}
