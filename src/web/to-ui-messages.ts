import type { ToolApprovalItem } from '../agent/run-result.js';
import type { AssistantMessage, ChatMessage, ContentPart, ToolCall } from '../api/types/chat.js';
import type { DocumentSource } from '../tools/tool.js';
import { sourceDocumentChunk } from './source-document-chunk.js';
import type { UIMessage, UIMessagePart, UIToolPart } from './ui-message.js';

/** Options of `toUIMessages`. */
export interface ToUIMessagesOptions {
  /**
   * The calls a paused run waits for (`GET /sessions/:id`'s pending approvals, `result.interruptions`):
   * shown in `approval-requested` state, so `useChat` offers the decision again after a reload. A call
   * not in the messages is added to the last answer (a stored session leaves a paused turn out).
   */
  pendingApprovals?: readonly ToolApprovalItem[];
  /** The calls that failed, with the error text the live stream showed (`output-error`), by call id. */
  toolErrors?: Readonly<Record<string, string>>;
  /** The documents each call's result drew on (`source-document` parts after it), by call id. */
  sources?: Readonly<Record<string, readonly DocumentSource[]>>;
}

/** The tool message of a call a human rejected starts so (the agent's `rejectionText`). */
const REJECTED = /^The user rejected this call of [^;]*; it was not run\.(?: Reason: ([\s\S]*))?$/;

/**
 * A conversation in wire format (a session's messages, `result.messages`) as the AI SDK's `UIMessage[]`,
 * so `useChat({ id, messages })` restores it after a reload: one user message per user turn, one
 * assistant message per answer with a `step-start` part per model turn, its reasoning (when kept), text,
 * and a `tool-<name>` part per call in the state its tool message gives (`output-available`, or
 * `output-denied` for a human's rejection); pending approvals in `approval-requested` state. System
 * messages are left out; a call nobody answered shows as an `output-error`. Ids are stable: `msg-<index
 * of the message it starts at>`.
 * @example
 * const { messages, pendingApprovals } = await (await fetch(`/api/sessions/${id}`)).json();
 * useChat({ id, messages: toUIMessages(messages, { pendingApprovals }) });
 */
export function toUIMessages(
  messages: readonly ChatMessage[],
  options: ToUIMessagesOptions = {},
): UIMessage[] {
  const out: UIMessage[] = [];
  const calls = new Map<string, { message: UIMessage; index: number }>();
  let answer: UIMessage | undefined;
  messages.forEach((message, at) => {
    if (message.role === 'user') {
      answer = undefined;
      out.push({ id: `msg-${at}`, role: 'user', parts: userParts(message.content) });
    } else if (message.role === 'assistant') {
      if (!answer) {
        answer = { id: `msg-${at}`, role: 'assistant', parts: [] };
        out.push(answer);
      }
      for (const part of assistantParts(message)) {
        if (isToolPart(part)) calls.set(part.toolCallId, { message: answer, index: answer.parts.length });
        answer.parts.push(part);
      }
    } else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id);
      const part = call?.message.parts[call.index];
      if (!call || !part || !isToolPart(part)) return;
      const errorText = options.toolErrors?.[message.tool_call_id];
      call.message.parts[call.index] =
        errorText === undefined
          ? answered(part, message.content)
          : { ...base(part), state: 'output-error', input: part.input, errorText };
      for (const source of options.sources?.[message.tool_call_id] ?? [])
        call.message.parts.push(sourceDocumentChunk(source));
    }
  });
  // The paused turn, when the messages leave it out, becomes one more step of the last answer.
  let pausedStep: UIMessage | undefined;
  // A client-side call waits for the page's output (`input-available`, so `onToolCall`'s app answers it).
  const awaitingOutput = new Set<string>();
  for (const pending of options.pendingApprovals ?? []) {
    const approval = { id: pending.toolCallId };
    if (pending.clientSide) awaitingOutput.add(pending.toolCallId);
    const waiting = pending.clientSide
      ? { state: 'input-available' as const }
      : { state: 'approval-requested' as const, approval };
    const call = calls.get(pending.toolCallId);
    const part = call?.message.parts[call.index];
    if (call && part && isToolPart(part)) {
      call.message.parts[call.index] = { ...base(part), input: part.input, ...waiting };
      continue;
    }
    let last = out.at(-1);
    if (last?.role !== 'assistant') {
      last = { id: `msg-${messages.length}`, role: 'assistant', parts: [] };
      out.push(last);
    }
    if (pausedStep !== last) last.parts.push({ type: 'step-start' });
    pausedStep = last;
    const added: UIToolPart = {
      type: `tool-${pending.toolName}`,
      toolCallId: pending.toolCallId,
      input: pending.input,
      ...waiting,
    };
    calls.set(pending.toolCallId, { message: last, index: last.parts.length });
    last.parts.push(added);
  }
  for (const [toolCallId, { message, index }] of calls) {
    const part = message.parts[index];
    if (part && isToolPart(part) && part.state === 'input-available' && !awaitingOutput.has(toolCallId))
      message.parts[index] = {
        ...base(part),
        state: 'output-error',
        input: part.input,
        errorText: 'Not run: the run ended before this call was answered.',
      };
  }
  return out;
}

function userParts(content: string | ContentPart[]): UIMessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((part): UIMessagePart[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image_url') {
      const { url } = part.image_url;
      return [{ type: 'file', mediaType: imageMediaType(url), url }];
    }
    // Audio and video inputs have no part `useChat` renders; their transcript is in the answer.
    return [];
  });
}

function assistantParts(message: AssistantMessage): UIMessagePart[] {
  const parts: UIMessagePart[] = [{ type: 'step-start' }];
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning, state: 'done' });
  if (message.content) parts.push({ type: 'text', text: message.content, state: 'done' });
  for (const call of message.tool_calls ?? []) parts.push(toolPart(call));
  return parts;
}

function toolPart(call: ToolCall): UIToolPart {
  const input = call.function.arguments ? parseJson(call.function.arguments) : {};
  const part = { type: `tool-${call.function.name}` as const, toolCallId: call.id };
  // A hosted call (web search, retrieval) was run by the service and carries its results.
  if (call.type !== 'function') {
    const results = (call.function as { results?: unknown }).results ?? null;
    return { ...part, providerExecuted: true, state: 'output-available', input, output: results };
  }
  return { ...part, state: 'input-available', input };
}

/** The part of a call once its tool message is known. */
function answered(part: UIToolPart, content: string): UIToolPart {
  const rejected = REJECTED.exec(content);
  if (rejected) {
    const reason = rejected[1];
    return {
      ...base(part),
      state: 'output-denied',
      input: part.input,
      approval: { id: part.toolCallId, approved: false, ...(reason ? { reason } : {}) },
    };
  }
  return { ...base(part), state: 'output-available', input: part.input, output: parseJson(content) };
}

function base(part: UIToolPart): Pick<UIToolPart, 'type' | 'toolCallId' | 'providerExecuted'> {
  return {
    type: part.type,
    toolCallId: part.toolCallId,
    ...(part.providerExecuted ? { providerExecuted: true } : {}),
  };
}

const isToolPart = (part: UIMessagePart): part is UIToolPart => part.type.startsWith('tool-');

/** A tool's output as the live stream sent it: its JSON back as a value, plain text as is. */
function parseJson(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

function imageMediaType(url: string): string {
  const data = /^data:([^;,]+)/.exec(url);
  if (data) return data[1]!;
  const extension = /\.([a-z]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return IMAGE_TYPES[extension] ?? 'image/*';
}
