import type { AgentEventJson } from '../agent/agent-event-json.js';
import { ToolApprovalError } from '../agent/errors.js';
import type { AgentEvent } from '../agent/events.js';
import type { AgentUsage } from '../agent/usage.js';
import type { FinishReason } from '../api/types/chat.js';
import { safeErrorMessage } from '../tools/safe-error-message.js';
import { sourceDocumentChunk } from './source-document-chunk.js';
import type { UIFinishReason, UIMessageChunk } from './ui-message-chunk.js';

/** Options of `createUIMessageChunkMapper`. */
export interface UIMessageChunkOptions {
  /** The id of the assistant message, sent in the `start` chunk. */
  messageId?: string;
  /** Pending approvals the user's new message declined: said after `start` (a `data-declined-approvals` part). */
  declinedApprovals?: readonly string[];
  /** The chat run the events come from, named in the `start` chunk's metadata. */
  runId?: string;
  /**
   * More metadata for the message, asked on `start`, `finish-step` and `finish` (as the AI SDK's
   * `messageMetadata({ part })`), merged over the defaults: `{ runId }` on start, `{ finishReason, usage }`
   * on finish. Answer `undefined` to add nothing.
   */
  messageMetadata?: (info: { event: AgentEventJson | AgentEvent }) => Record<string, unknown> | undefined;
  /**
   * The text an `error` chunk shows for the run's failure. @default () => 'An error occurred.' (as the AI
   * SDK's `onError`: an upstream message is not shown to the browser unless you choose to).
   */
  onError?: (error: { name: string; message: string }) => string;
}

/** What the `data-declined-approvals` part says. */
export const DECLINED_TEXT =
  'The pending tool calls were declined: you wrote a new message instead of deciding.';

/** The text of an `error` chunk unless `onError` says otherwise (the AI SDK's default). */
export const MASKED_ERROR_TEXT = 'An error occurred.';

/** A UI chunk a backend wrote into a run's log (`ChatAgentContext.ui`), passed to the page as is. */
export interface UIChunkLogEvent {
  type: 'ui-chunk';
  chunk: UIMessageChunk;
}

const FINISH_REASONS: Record<string, UIFinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  tool_calls: 'tool-calls',
};

/** A usage in the AI SDK's `LanguageModelUsage` names. */
export function toUIUsage(usage: AgentUsage): Record<string, number> {
  return {
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    cachedInputTokens: usage.cachedTokens,
  };
}

/** The AI SDK finish reason of a service finish reason. */
export function toUIFinishReason(reason: FinishReason | null): UIFinishReason {
  return reason === null ? 'other' : (FINISH_REASONS[reason] ?? 'other');
}

/**
 * A stateful mapping of one run's `AgentEvent`s to UI message stream chunks: text and reasoning deltas
 * are wrapped in start/end parts (a part closes when anything else happens), tool calls become tool
 * input/output parts, a human's rejection becomes `tool-output-denied`, an approval request
 * `tool-approval-request` (its `approvalId` is the `toolCallId`), a `source` a `source-document` part.
 * A sub-agent's (`agent.asTool`) events are not mapped, except for its calls that ask a human: their
 * request, then their outcome, are shown as tool parts of their own (the agent tool's part meanwhile
 * holds `{ awaitingApproval: [toolCallId] }`).
 */
export function createUIMessageChunkMapper(options: UIMessageChunkOptions = {}) {
  let open: { kind: 'text' | 'reasoning'; id: string } | undefined;
  let parts = 0;
  /** A step is announced with its first chunk: a step that fails before any has no `start-step`. */
  let step: 'none' | 'pending' | 'open' = 'none';
  /** Calls whose input the client has seen: an error of any other call is an input error. */
  const announced = new Set<string>();
  /** Calls of sub-agents started in this stream (their outcomes stay inside the agent tool). */
  const subAgentCalls = new Set<string>();
  /** The top-level agent-tool call each of its sub-agent's approval requests comes from. */
  const requestedIn = new Map<string, string>();
  /** The calls a suspended agent-tool call waits for, by that call. */
  const awaiting = new Map<string, string[]>();
  const close = (out: UIMessageChunk[]) => {
    if (open) out.push({ type: `${open.kind}-end`, id: open.id });
    open = undefined;
  };
  const delta = (out: UIMessageChunk[], kind: 'text' | 'reasoning', text: string) => {
    if (open?.kind !== kind) {
      close(out);
      open = { kind, id: `${kind}-${parts++}` };
      out.push({ type: `${kind}-start`, id: open.id });
    }
    out.push({ type: `${kind}-delta`, id: open.id, delta: text });
  };

  const metadata = (event: AgentEvent | AgentEventJson, defaults: Record<string, unknown>) => {
    const more = options.messageMetadata?.({ event });
    const merged = { ...defaults, ...(more ?? {}) };
    return Object.keys(merged).length > 0 ? { messageMetadata: merged } : {};
  };

  /** The chunks of one event (often one, sometimes none or a few). */
  return function map(event: AgentEvent | AgentEventJson | UIChunkLogEvent): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    if (event.type === 'ui-chunk') {
      out.push(event.chunk);
      return out;
    }
    if (step === 'pending' && !STEPLESS.has(event.type)) {
      out.push({ type: 'start-step' });
      step = 'open';
    }
    if (event.type === 'text-delta') delta(out, 'text', event.text);
    else if (event.type === 'reasoning-delta') delta(out, 'reasoning', event.text);
    else {
      close(out);
      mapOther(event, out);
    }
    return out;
  };

  function mapOther(event: AgentEvent | AgentEventJson, out: UIMessageChunk[]): void {
    switch (event.type) {
      case 'start':
        out.push({
          type: 'start',
          ...(options.messageId ? { messageId: options.messageId } : {}),
          ...metadata(event, options.runId ? { runId: options.runId } : {}),
        });
        if (options.declinedApprovals?.length)
          out.push({
            type: 'data-declined-approvals',
            data: { toolCallIds: options.declinedApprovals, text: DECLINED_TEXT },
          });
        return;
      case 'start-step':
        if (step === 'open') out.push({ type: 'finish-step' });
        step = 'pending';
        return;
      case 'tool-input-start':
        out.push({ type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.toolName });
        return;
      case 'tool-input-delta':
        out.push({ type: 'tool-input-delta', toolCallId: event.toolCallId, inputTextDelta: event.delta });
        return;
      case 'tool-call':
        // Arguments that did not parse (or an unknown tool): its `tool-error` says so as `tool-input-error`.
        if ('invalid' in event && event.invalid) return;
        announced.add(event.toolCallId);
        out.push({ type: 'tool-input-available', ...pick(event) });
        return;
      case 'tool-approval-request':
        // A sub-agent's call (its own events are not mapped) is new to the client: announce it first.
        if (!announced.has(event.toolCallId)) {
          announced.add(event.toolCallId);
          out.push({ type: 'tool-input-available', ...pick(event) });
        }
        out.push({
          type: 'tool-approval-request',
          approvalId: event.toolCallId,
          toolCallId: event.toolCallId,
        });
        markAwaiting(event.toolCallId, out);
        return;
      case 'tool-result':
        // A resumed run reports results of calls announced by the run before it: announce them again;
        // not a client-side call's (the page answered it: announcing it again fires `onToolCall` again).
        if (!announced.has(event.toolCallId) && event.clientSide !== true) {
          announced.add(event.toolCallId);
          out.push({ type: 'tool-input-available', ...pick(event) });
        }
        out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output });
        return;
      case 'tool-error':
        mapToolError(event, out);
        return;
      case 'hosted-tool-call':
        out.push(...hostedToolCallChunks(event));
        return;
      case 'source':
        out.push(sourceDocumentChunk(event));
        return;
      case 'sub-agent':
        mapSubAgent(event.toolCallId, event.event, out);
        return;
      case 'finish-step':
        // A continuation's first step began in the run before it: its end is not this stream's to close.
        if (step === 'none') return;
        if (step === 'pending') out.push({ type: 'start-step' });
        step = 'none';
        out.push({ type: 'finish-step' });
        return;
      case 'finish': {
        const finishReason = toUIFinishReason(event.finishReason);
        const usage = 'usage' in event && event.usage ? toUIUsage(event.usage) : undefined;
        out.push({
          type: 'finish',
          finishReason,
          ...metadata(event, { finishReason, ...(usage ? { usage } : {}) }),
        });
        return;
      }
      case 'error': {
        step = 'none';
        const error = { name: errorNameOf(event.error), message: errorTextOf(event.error) };
        out.push({ type: 'error', errorText: options.onError?.(error) ?? MASKED_ERROR_TEXT });
        return;
      }
      case 'abort':
        out.push(
          event.reason === undefined
            ? { type: 'abort' }
            : { type: 'abort', reason: errorTextOf(event.reason) },
        );
        return;
      default:
        // audio-delta has no UI message part.
        return;
    }
  }

  /**
   * A sub-agent's events stay inside its tool call, except the outcome of a call a human decided on: its
   * approval request reached the client as a top-level event (in this run or the run it resumes), so
   * its result, error or denial does too. Such a call is one whose `tool-call` this stream did not see.
   */
  function mapSubAgent(
    parentCallId: string,
    nested: AgentEvent | AgentEventJson,
    out: UIMessageChunk[],
  ): void {
    let event = nested;
    while (event.type === 'sub-agent') event = event.event;
    if (event.type === 'tool-call') subAgentCalls.add(event.toolCallId);
    else if (event.type === 'tool-approval-request') requestedIn.set(event.toolCallId, parentCallId);
    else if (event.type === 'tool-result' || event.type === 'tool-error') {
      if (announced.has(event.toolCallId) || !subAgentCalls.has(event.toolCallId)) mapOther(event, out);
    }
  }

  /**
   * The agent-tool call a sub-agent's approval request comes from pauses without a result. A tool part
   * left in `input-available` would keep `useChat` (`lastAssistantMessageIsCompleteWithApprovalResponses`)
   * from sending the approval responses, so it gets a provisional output naming the calls it waits for
   * (`{ awaitingApproval: [toolCallId] }`), replaced by its real output in the resumed stream.
   */
  function markAwaiting(toolCallId: string, out: UIMessageChunk[]): void {
    const parent = requestedIn.get(toolCallId);
    if (parent === undefined || !announced.has(parent)) return;
    const waiting = [...(awaiting.get(parent) ?? []), toolCallId];
    awaiting.set(parent, waiting);
    out.push({ type: 'tool-output-available', toolCallId: parent, output: { awaitingApproval: waiting } });
  }

  function mapToolError(
    event: Extract<AgentEvent | AgentEventJson, { type: 'tool-error' }>,
    out: UIMessageChunk[],
  ): void {
    const errorText = errorTextOf(event.error);
    // A live error, or its JSON form when the events come from a run log.
    if (event.error instanceof ToolApprovalError || event.error.name === 'ToolApprovalError') {
      if (!announced.has(event.toolCallId)) {
        announced.add(event.toolCallId);
        out.push({ type: 'tool-input-available', ...pick(event) });
      }
      out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
      return;
    }
    if (!announced.has(event.toolCallId)) {
      announced.add(event.toolCallId);
      out.push({ type: 'tool-input-error', ...pick(event), errorText });
      return;
    }
    out.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText });
  }
}

/** The events that open no step: a step that ends in them showed nothing. */
const STEPLESS = new Set(['start-step', 'error', 'abort', 'finish', 'model-fallback', 'context-overflow']);

function errorNameOf(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : 'Error';
}

/** The message of an error, live or serialised (`{ name, message }`). */
function errorTextOf(error: unknown): string {
  if (!(error instanceof Error) && typeof (error as { message?: unknown } | null)?.message === 'string')
    return (error as { message: string }).message;
  return safeErrorMessage(error);
}

function pick(event: { toolCallId: string; toolName: string; input: unknown }) {
  return { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input };
}

function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A call the service ran itself (retrieval): its input and output at once, marked provider-executed. */
function hostedToolCallChunks(
  event: Extract<AgentEvent | AgentEventJson, { type: 'hosted-tool-call' }>,
): UIMessageChunk[] {
  return [
    {
      type: 'tool-input-available',
      toolCallId: event.toolCallId,
      toolName: event.name ?? event.toolType,
      input: parseArguments(event.arguments),
      providerExecuted: true,
    },
    {
      type: 'tool-output-available',
      toolCallId: event.toolCallId,
      output: event.results ?? null,
      providerExecuted: true,
    },
  ];
}
