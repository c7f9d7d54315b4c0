import type { SvcClient } from '../api/svc-client.js';
import type { ToolCall } from '../api/types/chat.js';
import { NoSuchToolError, ToolExecutionError, ToolSuspendedError, ToolTimeoutError } from './errors.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS, toText, truncateToolOutput } from './format-tool-output.js';
import { cancelledText, timedOutText } from './model-texts.js';
import { runWithTimeout } from './run-with-timeout.js';
import { safeErrorMessage } from './safe-error-message.js';
import type { ParseArgumentsResult, ToolCallOutcome, ToolSet } from './tool.js';
import { ToolCallContext } from './tool-call-context.js';
import type { ToolCallLedger } from './tool-call-ledger.js';

/**
 * What every tool call of one turn shares: the tools, the caller's context and client, the run's signal,
 * id and step, and the output cap. The agent builds one per turn and hands it to each call.
 */
export interface ToolCallScope<C = unknown> {
  /** The tools of the run. */
  toolSet: ToolSet;
  /** The run's user context, passed to the tool as `ctx.context`. */
  context?: C;
  /** The client, passed to the tool as `ctx.client`. */
  client?: SvcClient | undefined;
  /** The run's abort signal; the tool's own signal also fires on its timeout. */
  signal?: AbortSignal | undefined;
  /** The agent run this call belongs to, passed to the tool as `ctx.runId`. */
  runId?: string | undefined;
  /** Index of the run's step (turn) that made the call; part of `ctx.idempotencyKey`. */
  step?: number | undefined;
  /** Cap on the `tool` message text, in characters, when the tool sets none (`maxOutputChars`). @default 100_000 */
  maxOutputChars?: number | undefined;
}

/** Options of `executeToolCall`. */
export interface ExecuteToolCallOptions<C = unknown> extends ToolCallScope<C> {
  /** The call the model asked for. */
  call: ToolCall;
  /** Records the call so its id never runs twice. */
  ledger?: ToolCallLedger | undefined;
  /** The call's arguments as the tool's `parseArguments` already parsed them (parsed here otherwise). */
  parsedArguments?: ParseArgumentsResult<unknown> | undefined;
}

/**
 * Runs one tool call and describes how it went. Model mistakes (unknown tool, bad arguments), a throwing
 * tool, a timeout and an abort all become an outcome whose `content` is the `tool` message for the model:
 * it never rejects for what the tool did.
 */
export function executeToolCall<C>(options: ExecuteToolCallOptions<C>): Promise<ToolCallOutcome> {
  return executeScopedToolCall(
    options,
    options.call,
    options.signal,
    options.ledger,
    options.parsedArguments,
  );
}

/**
 * `executeToolCall` for a call of a turn whose shared part (`scope`) was built once: nothing is allocated
 * per call to describe it. `signal` is the call's own (the scope's, or one that also stops this call).
 */
export function executeScopedToolCall<C>(
  scope: ToolCallScope<C>,
  call: ToolCall,
  signal: AbortSignal | undefined,
  ledger: ToolCallLedger | undefined,
  parsedArguments: ParseArgumentsResult<unknown> | undefined,
): Promise<ToolCallOutcome> {
  if (!ledger) return runToolCall(scope, call, signal, parsedArguments);
  // An idempotent tool stopped mid-run is forgotten like an unstarted one: a resumed run may run it again.
  const rerunIfStopped = scope.toolSet.functions.get(call.function.name)?.idempotent === true;
  return ledger.run(call.id, () => runToolCall(scope, call, signal, parsedArguments), rerunIfStopped);
}

async function runToolCall<C>(
  scope: ToolCallScope<C>,
  call: ToolCall,
  signal: AbortSignal | undefined,
  parsedArguments: ParseArgumentsResult<unknown> | undefined,
): Promise<ToolCallOutcome> {
  const { toolSet } = scope;
  const toolName = call.function.name;
  const argumentsText = call.function.arguments ?? '';
  const base = { toolCallId: call.id, toolName, output: undefined, executed: false };

  const tool = toolSet.functions.get(toolName);
  if (!tool) {
    const error = new NoSuchToolError({ toolName, availableTools: [...toolSet.functions.keys()] });
    return { ...base, input: argumentsText, status: 'no-such-tool', content: error.message, error };
  }
  const parsed = parsedArguments ?? tool.parseArguments(argumentsText);
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
        new ToolCallContext(call.id, work, scope.context as C, scope.client, scope.runId, scope.step),
      ),
  });
  let failed: Exclude<typeof result, { status: 'ok' }>;
  if (result.status === 'ok') {
    const formatted = tryFormat(result.value, tool.maxOutputChars ?? scope.maxOutputChars, scope.client);
    // The common outcome, built in one literal (no spread of `base`).
    if (!('error' in formatted)) {
      return {
        toolCallId: call.id,
        toolName,
        input,
        executed: true,
        status: 'ok',
        output: formatted.output,
        content: formatted.content,
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
        content: timedOutText(failed.error.message),
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
        message: redactWith(scope.client, safeErrorMessage(failed.error)),
        cause: failed.error,
      });
      return { ...started, status: 'error', content: error.message, error };
    }
  }
}

/**
 * The tool message text and the output the events carry, with the client's API key and secrets masked
 * (before the cut, so no prefix of one survives): whatever a tool read, a prompt injection may have put a
 * secret there, and the output goes to the model, the events and the store. Or the error that makes the
 * output unshowable.
 */
function tryFormat(
  value: unknown,
  maxChars: number | undefined,
  client: SvcClient | undefined,
): { content: string; output: unknown } | { error: unknown } {
  try {
    const text = toText(value);
    const masked = redactWith(client, text);
    // Unchanged outputs stay the very value the tool returned; a masked one is its masked JSON.
    const output = masked === text ? value : typeof value === 'string' ? masked : JSON.parse(masked);
    return { content: truncateToolOutput(masked, maxChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS), output };
  } catch (error) {
    return { error };
  }
}

/** `text` with the client's API key and configured secrets masked (as is without a client). */
function redactWith(client: SvcClient | undefined, text: string): string {
  return client?.transport?.redact ? client.transport.redact(text) : text;
}

function reasonOf(signal: AbortSignal): Error {
  return toError(signal.reason);
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value ?? 'aborted'));
}
