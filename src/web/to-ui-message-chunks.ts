import type { AgentEventJson } from '../agent/agent-event-json.js';
import { ToolApprovalError } from '../agent/errors.js';
import type { AgentEvent } from '../agent/events.js';
import type { FinishReason } from '../api/types/chat.js';
import { safeErrorMessage } from '../tools/safe-error-message.js';
import type { UIFinishReason, UIMessageChunk } from './ui-message-chunk.js';

/** Options of `createUIMessageChunkMapper`. */
export interface UIMessageChunkOptions {
  /** The id of the assistant message, sent in the `start` chunk. */
  messageId?: string;
}

const FINISH_REASONS: Record<string, UIFinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  tool_calls: 'tool-calls',
};

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

  /** The chunks of one event (often one, sometimes none or a few). */
  return function map(event: AgentEvent | AgentEventJson): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
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
        out.push(options.messageId ? { type: 'start', messageId: options.messageId } : { type: 'start' });
        return;
      case 'start-step':
        out.push({ type: 'start-step' });
        return;
      case 'tool-input-start':
        out.push({ type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.toolName });
        return;
      case 'tool-input-delta':
        out.push({ type: 'tool-input-delta', toolCallId: event.toolCallId, inputTextDelta: event.delta });
        return;
      case 'tool-call':
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
        // A resumed run reports results of calls announced by the run before it: announce them again.
        if (!announced.has(event.toolCallId)) {
          announced.add(event.toolCallId);
          out.push({ type: 'tool-input-available', ...pick(event) });
        }
        out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output });
        return;
      case 'tool-error':
        mapToolError(event, out);
        return;
      case 'hosted-tool-call': {
        const toolName = event.name ?? event.toolType;
        const input = parseArguments(event.arguments);
        out.push({
          type: 'tool-input-available',
          toolCallId: event.toolCallId,
          toolName,
          input,
          providerExecuted: true,
        });
        out.push({
          type: 'tool-output-available',
          toolCallId: event.toolCallId,
          output: event.results ?? null,
          providerExecuted: true,
        });
        return;
      }
      case 'source':
        out.push({
          type: 'source-document',
          sourceId: event.id,
          mediaType: mediaTypeOf(event.title),
          title: event.title,
          filename: event.title,
          providerMetadata: { svc: { fileId: event.fileId } },
        });
        return;
      case 'sub-agent':
        mapSubAgent(event.toolCallId, event.event, out);
        return;
      case 'finish-step':
        out.push({ type: 'finish-step' });
        return;
      case 'finish':
        out.push({ type: 'finish', finishReason: toUIFinishReason(event.finishReason) });
        return;
      case 'error':
        out.push({ type: 'error', errorText: errorTextOf(event.error) });
        return;
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

/** The message of an error, live or serialised (`{ name, message }`). */
function errorTextOf(error: unknown): string {
  if (!(error instanceof Error) && typeof (error as { message?: unknown } | null)?.message === 'string')
    return (error as { message: string }).message;
  return safeErrorMessage(error);
}

function pick(event: { toolCallId: string; toolName: string; input: unknown }) {
  return { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input };
}

const MEDIA_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  xml: 'application/xml',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** The media type a `source-document` part needs, from the file name (the service does not send one). */
function mediaTypeOf(fileName: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return MEDIA_TYPES[extension] ?? 'application/octet-stream';
}

function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
