import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import type { ContentPart } from '../api/types/chat.js';
import type { ApprovalDecision } from './apply-decisions.js';
import { createUIMessageChunkMapper, type UIMessageChunkOptions } from './to-ui-message-chunks.js';
import { uiUserContent } from './ui-user-content.js';
import { ChatRequestError } from './web-error.js';

/**
 * What a `useChat` request asks for: answer a new user message, answer the last user message again in
 * place of the last answer (`regenerate()`), or resume after approval responses.
 */
export type UIChatRequest =
  | { sessionId: string; kind: 'message'; content: string | ContentPart[]; page: PageMessage[] }
  | { sessionId: string; kind: 'regenerate'; page: PageMessage[] }
  | { sessionId: string; kind: 'decisions'; decisions: ApprovalDecision[] };

/** A message of the page's history, as far as lining it up with the server's needs: id, role, text. */
export interface PageMessage {
  id: unknown;
  role: unknown;
  text: string;
}

interface UIPart {
  type?: unknown;
  text?: unknown;
  state?: unknown;
  toolCallId?: unknown;
  output?: unknown;
  errorText?: unknown;
  providerExecuted?: unknown;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/**
 * Reads the body `DefaultChatTransport` posts (`{ id, messages: UIMessage[] }`): the chat id is the
 * session; a last user message is a new message (its text parts); a last assistant message with
 * `approval-responded` tool parts carries the decisions for the paused run (the approval id is the
 * tool call id, as `toUIMessageStreamResponse` sends it); `trigger: 'regenerate-message'` asks for the
 * last answer again (the server's history, not the client's copy, says what the question was).
 */
export function parseUIChatRequest(body: Record<string, unknown>): UIChatRequest {
  const { id, messages, trigger } = body;
  if (typeof id !== 'string' || !/^[\w.-]{1,128}$/.test(id))
    throw new ChatRequestError({
      status: 400,
      message: 'id: the chat id must be 1-128 letters, digits, _ . or -',
    });
  if (trigger !== undefined && trigger !== 'submit-message' && trigger !== 'regenerate-message')
    throw new ChatRequestError({
      status: 400,
      message: "trigger: must be 'submit-message' or 'regenerate-message'",
    });
  if (!Array.isArray(messages) || messages.length === 0)
    throw new ChatRequestError({
      status: 400,
      message: 'messages: must be a non-empty array of UI messages',
    });
  if (trigger === 'regenerate-message') return { sessionId: id, kind: 'regenerate', page: pageOf(messages) };
  const at = messages.length - 1;
  const last = messages[at] as { role?: unknown; parts?: unknown };
  if (!isObject(last))
    throw new ChatRequestError({ status: 400, message: `messages[${at}]: must be a UI message object` });
  const parts = (Array.isArray(last.parts) ? last.parts : []) as UIPart[];
  const badPart = parts.findIndex(
    (part) => !isObject(part) || (part.approval != null && !isObject(part.approval)),
  );
  if (badPart !== -1)
    throw new ChatRequestError({
      status: 400,
      message: `messages[${at}].parts[${badPart}]: must be an object (its approval too)`,
    });
  if (last.role === 'user')
    return { sessionId: id, kind: 'message', content: uiUserContent(parts, at), page: pageOf(messages) };
  const decisions = parts.flatMap((part): ApprovalDecision[] => {
    if (typeof part.toolCallId !== 'string') return [];
    const toolCallId = part.toolCallId;
    if (part.state === 'approval-responded') {
      const approved = part.approval?.approved === true;
      const reason = typeof part.approval?.reason === 'string' ? part.approval.reason : undefined;
      return [{ toolCallId, approved, ...(reason === undefined ? {} : { reason }) }];
    }
    // Outputs the page holds (`addToolOutput` of a client-side call, or the server's own calls, which the
    // run answered already and skips): the server decides which call waits for one.
    if (part.providerExecuted === true) return [];
    if (part.state === 'output-available') return [{ toolCallId, approved: true, output: part.output }];
    if (part.state === 'output-error' && !Object.hasOwn(part, 'output')) {
      const reason = typeof part.errorText === 'string' ? part.errorText : 'The tool failed in the browser.';
      return [{ toolCallId, approved: false, reason, output: undefined }];
    }
    return [];
  });
  if (decisions.length === 0)
    throw new ChatRequestError({
      status: 400,
      message: `messages[${messages.length - 1}]: expected a user message, approval responses or tool outputs`,
    });
  return { sessionId: id, kind: 'decisions', decisions };
}

/** What a page is told when the run's log ends without its end: the server running it died. */
export const INTERRUPTED_TEXT =
  'The answer was interrupted: the server running it stopped. What was shown is kept; send the message again.';

/**
 * A run's event frames (`AgentEventJson` data) as UI message stream frames, ending with `[DONE]`. A log
 * that ends without `finish`, `error` or `abort` (the run's process died and its lease ran out) ends with
 * an `error` chunk, never a bare `[DONE]` that would look like a finished answer.
 */
export async function* uiFramesFromEvents(
  events: AsyncIterable<SseFrame>,
  options: UIMessageChunkOptions = {},
): AsyncGenerator<SseFrame> {
  const map = createUIMessageChunkMapper(options);
  let ended = false;
  for await (const frame of events) {
    const event = JSON.parse(frame.data) as { type: string };
    if (event.type === 'finish' || event.type === 'error' || event.type === 'abort') ended = true;
    for (const chunk of map(event as never)) yield { data: JSON.stringify(chunk) };
  }
  if (!ended) yield { data: JSON.stringify({ type: 'error', errorText: INTERRUPTED_TEXT }) };
  yield { data: '[DONE]' };
}

/** The page's messages, each with its text (what a user message is recognised by when its id is the page's own). */
function pageOf(messages: unknown[]): PageMessage[] {
  return messages.map((message) => {
    const { id, role, parts } = (isObject(message) ? message : {}) as {
      id?: unknown;
      role?: unknown;
      parts?: unknown;
    };
    const text = (Array.isArray(parts) ? (parts as UIPart[]) : [])
      .filter((part) => isObject(part) && part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string)
      .join('\n');
    return { id, role, text };
  });
}

const isObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
