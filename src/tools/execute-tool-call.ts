import type { SvcClient } from '../api/svc-client.js';
import type { ToolCall } from '../api/types/chat.js';
import { NoSuchToolError, ToolExecutionError, ToolSuspendedError, ToolTimeoutError } from './errors.js';
import { formatToolOutput } from './format-tool-output.js';
import { runWithTimeout } from './run-with-timeout.js';
import { safeErrorMessage } from './safe-error-message.js';
import type { ParseArgumentsResult, ToolCallOutcome, ToolSet } from './tool.js';
import { ToolCallContext } from './tool-call-context.js';
import type { ToolCallLedger } from './tool-call-ledger.js';

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
  /** Records the call so its id never runs twice. */
  ledger?: ToolCallLedger | undefined;
  /** The call's arguments as the tool's `parseArguments` already parsed them (parsed here otherwise). */
  parsedArguments?: ParseArgumentsResult<unknown> | undefined;
  /** The agent run this call belongs to, passed to the tool as `ctx.runId`. */
  runId?: string | undefined;
  /** Index of the run's step (turn) that made the call; part of `ctx.idempotencyKey`. */
  step?: number | undefined;
  /** Cap on the `tool` message text, in characters, when the tool sets none (`maxOutputChars`). @default 100_000 */
  maxOutputChars?: number | undefined;
}

/**
 * Runs one tool call and describes how it went. Model mistakes (unknown tool, bad arguments), a throwing
 * tool, a timeout and an abort all become an outcome whose `content` is the `tool` message for the model:
 * it never rejects for what the tool did.
 */
export function executeToolCall<C>(options: ExecuteToolCallOptions<C>): Promise<ToolCallOutcome> {
  const { ledger, call } = options;
  if (!ledger) return runToolCall(options);
  // An idempotent tool stopped mid-run is forgotten like an unstarted one: a resumed run may run it again.
  const rerunIfStopped = options.toolSet.functions.get(call.function.name)?.idempotent === true;
  return ledger.run(call.id, () => runToolCall(options), rerunIfStopped);
}

async function runToolCall<C>(options: ExecuteToolCallOptions<C>): Promise<ToolCallOutcome> {
  const { toolSet, call, signal } = options;
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
    return {
      ...base,
      input,
      status: 'aborted',
      content: cancelledText(toolName, tool.idempotent, false),
      error: reasonOf(signal),
    };

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
  let failed: Exclude<typeof result, { status: 'ok' }>;
  if (result.status === 'ok') {
    const formatted = tryFormat(result.value, tool.maxOutputChars ?? options.maxOutputChars);
    // The common outcome, built in one literal (no spread of `base`).
    if (typeof formatted === 'string') {
      return {
        toolCallId: call.id,
        toolName,
        input,
        executed: true,
        status: 'ok',
        output: result.value,
        content: formatted,
      };
    }
    // A function or a symbol: the model cannot be shown it, so the tool failed.
    failed = { status: 'error', error: formatted.error };
  } else failed = result;
  const started = { ...base, input, executed: true };
  switch (failed.status) {
    case 'timeout':
      return {
        ...started,
        status: 'timeout',
        content: `${failed.error.message}; the call was stopped, but it had started and may have taken effect.`,
        error: failed.error,
      };
    case 'aborted':
      return {
        ...started,
        status: 'aborted',
        content: cancelledText(toolName, tool.idempotent, true),
        error: toError(failed.error),
      };
    default: {
      // Not done, only waiting: an unexecuted outcome, which the ledger forgets, so a resume runs it again.
      if (ToolSuspendedError.isInstance(failed.error)) {
        return { ...base, input, status: 'aborted', content: failed.error.message, error: failed.error };
      }
      const error = new ToolExecutionError({
        toolName,
        toolCallId: call.id,
        message: safeErrorMessage(failed.error),
        cause: failed.error,
      });
      return { ...started, status: 'error', content: error.message, error };
    }
  }
}

/** The tool message text, or the error that makes the output unshowable. */
function tryFormat(value: unknown, maxChars: number | undefined): string | { error: unknown } {
  try {
    return formatToolOutput(value, maxChars);
  } catch (error) {
    return { error };
  }
}

/**
 * The `tool` message of a call an abort stopped. `started`: true when its tool ran, false when it never
 * did, undefined when not known (the ledger forgets only an idempotent call stopped mid-run, so an unknown
 * non-idempotent call never started). A tool may ignore its signal and finish its side effect anyway, so
 * the model is told what is known, not "cancelled".
 */
export function cancelledText(toolName: string, idempotent: boolean, started?: boolean): string {
  const stopped = `Tool ${toolName} was stopped while it ran (the run was aborted); it may have taken effect`;
  if (started === true) {
    return idempotent
      ? `${stopped}, and running it again is safe.`
      : `${stopped}, so check before running it again.`;
  }
  if (started === undefined && idempotent) {
    return `Tool ${toolName} was stopped or not started (the run was aborted); it may have taken effect, and running it again is safe.`;
  }
  return `Tool ${toolName} was not run: the run was aborted before it started.`;
}

function reasonOf(signal: AbortSignal): Error {
  return toError(signal.reason);
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value ?? 'aborted'));
}
