import { randomUUID } from 'node:crypto';
import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import type { SseStreamOptions } from '../agent/server-sse/sse-stream-options.js';
import { toSseResponse } from '../agent/server-sse/sse-writer.js';
import type { ChatMessage } from '../api/types/chat.js';
import type { ApprovalDecision } from './apply-decisions.js';
import { readCallNotes } from './chat-call-notes.js';
import { type ChatOwner, ownedSessionId } from './chat-owner.js';
import type { ChatSessions } from './chat-sessions.js';
import { type ChatStateStore, chatKeys, runIsOver } from './chat-state.js';
import { readJsonObject } from './request-body.js';
import type { UIMessageChunkOptions } from './to-ui-message-chunks.js';
import { toUIMessages } from './to-ui-messages.js';
import { parseUIChatRequest, uiFramesFromEvents } from './ui-chat-request.js';
import type { UIChatRun, UIChatRuns } from './ui-chat-runs.js';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-chunk.js';
import { followPageHistory } from './ui-page-history.js';
import { ChatRequestError, jsonResponse } from './web-error.js';

/** What the `useChat` routes need from the chat handler. */
export interface UIRoutesContext {
  sessions: ChatSessions;
  /** The pages' runs: what each was shown, whether its chat reconnects. */
  uiRuns: UIChatRuns;
  store: ChatStateStore;
  sse: SseStreamOptions;
  maxBodyBytes: number;
  /** Who the request acts for: the chat id is namespaced by it. */
  owner: ChatOwner | undefined;
  /** How events become chunks: message metadata, the text of errors. */
  ui?: Pick<UIMessageChunkOptions, 'messageMetadata' | 'onError'>;
}

/**
 * The routes for a `useChat` front end (`@ai-sdk/react`, `api: '<basePath>/ui'`), in the AI SDK UI
 * message stream protocol, on the same shared sessions as the JSON routes; the chat id is the session:
 * - `POST /ui`: a new message (a run of the chat's last page that went away is stopped first, keeping
 *   what it showed), `regenerate()` (the last answer replaced), or approval responses that continue the
 *   chat's paused run (on whichever server it paused);
 * - `GET /ui/:chatId/stream` (`resume: true`): 204 when nothing runs, else the run in progress replayed
 *   from its start and followed live, on any server;
 * - `GET /ui/:chatId/messages`: the conversation as `UIMessage[]` for `useChat({ messages })`, with a
 *   pending approval in `approval-requested` state.
 * Answers `undefined` for a path that is not one of them.
 */
export async function routeUI(
  context: UIRoutesContext,
  request: Request,
  path: string,
): Promise<Response | undefined> {
  if (path === '/ui' && request.method === 'POST') return postUI(context, request);
  const chat = /^\/ui\/([\w.-]{1,128})\/(stream|messages)$/.exec(path);
  if (chat?.[2] === 'stream' && request.method === 'GET') return getStream(context, chat[1]!);
  if (chat?.[2] === 'messages' && request.method === 'GET') return getMessages(context, chat[1]!);
  return undefined;
}

async function postUI(context: UIRoutesContext, request: Request): Promise<Response> {
  const { sessions, uiRuns, store, maxBodyBytes } = context;
  const parsed = parseUIChatRequest(await readJsonObject(request, maxBodyBytes));
  const sessionId = ownedSessionId(context.owner, parsed.sessionId);
  if (parsed.kind === 'decisions') {
    let runId: string;
    try {
      runId = await sessions.continuePaused(sessionId, parsed.decisions, undefined, context.owner);
    } catch (error) {
      // The same tool outputs posted again (a retry): the answer they led to, never applied twice.
      const answer = await answerOfOutputs(context, sessionId, parsed.decisions, error);
      if (answer) return streamUI(context, parsed.sessionId, answer);
      throw error;
    }
    // The answer goes on in the message that asked: its id, as a restore names it.
    const items = await store.getItems(sessionId);
    const messageId = `msg-${items.findLastIndex((item) => item.role === 'user') + 1}`;
    const run = { runId, before: -1, input: [], messageId, resumes: resumes(request) };
    await uiRuns.begin(sessionId, run);
    return streamUI(context, parsed.sessionId, run);
  }
  await uiRuns.settleLast(sessionId);
  // An edit or a regenerate of an older answer: the session drops what the page dropped.
  const view = await sessions.describe(sessionId);
  if (view && !view.activeRunId && view.pendingApprovals.length === 0) {
    const kept = parsed.kind === 'regenerate' ? parsed.page.length : parsed.page.length - 1;
    await followPageHistory(store, sessionId, parsed.page, kept);
  }
  const taken = parsed.kind === 'regenerate' ? await uiRuns.takeLastQuestion(sessionId) : undefined;
  const input: ChatMessage[] =
    parsed.kind === 'regenerate' ? taken!.question : [{ role: 'user', content: parsed.content }];
  // `useChat` has no way to answer a 409 for a pending approval: a new message declines it, and says so.
  const pending =
    parsed.kind === 'message' ? ((await sessions.describe(sessionId))?.pendingApprovals ?? []) : [];
  const declined = pending.map((call) => call.toolCallId);
  const before = (await store.getItems(sessionId)).length;
  let runId: string;
  try {
    runId = await sessions.beginMessage(sessionId, input, {
      rejectPending: declined.length > 0,
      owner: context.owner,
    });
  } catch (error) {
    // Another run claimed the chat since the check (another tab, server or route): the answer stays.
    if (taken) await uiRuns.putBack(sessionId, taken.taken, randomUUID());
    throw error;
  }
  // The answer's id as a restore names it (`msg-<index of its first item>`): live and restored ids agree.
  const messageId = `msg-${before + (declined.length > 0 ? 1 : 0) + input.length}`;
  const run = {
    runId,
    before,
    input,
    messageId,
    resumes: resumes(request),
    ...(declined.length > 0 ? { declined } : {}),
  };
  await uiRuns.begin(sessionId, run);
  return streamUI(context, parsed.sessionId, run);
}

/**
 * The chat's last answer when `error` says nothing waits for decisions and every decision is a tool output
 * the session holds already (as the answer of that call); otherwise `undefined` (the error stands).
 */
async function answerOfOutputs(
  context: UIRoutesContext,
  sessionId: string,
  decisions: readonly ApprovalDecision[],
  error: unknown,
): Promise<UIChatRun | undefined> {
  if (!(error instanceof ChatRequestError) || (error.status !== 404 && error.status !== 409))
    return undefined;
  if (!decisions.every((d) => Object.hasOwn(d, 'output'))) return undefined;
  const answered = new Set(
    (await context.store.getItems(sessionId)).flatMap((item) =>
      item.role === 'tool' ? [item.tool_call_id] : [],
    ),
  );
  if (!decisions.every((d) => answered.has(d.toolCallId))) return undefined;
  return (await context.uiRuns.lastOf(sessionId)).value;
}

async function getStream(context: UIRoutesContext, clientId: string): Promise<Response> {
  const { sessions, uiRuns, store } = context;
  const chatId = ownedSessionId(context.owner, clientId);
  const active = (await store.getValue(chatKeys.active(chatId))).value;
  if (active === undefined || runIsOver(await sessions.runInfo(active)))
    return withResumeCookie(new Response(null, { status: 204 }));
  const last = (await uiRuns.lastOf(chatId)).value;
  // A reload follows the run again: it is not to be stopped as a page that left.
  if (last?.runId === active) await uiRuns.followed(chatId, active);
  return withResumeCookie(
    await streamUI(context, clientId, last?.runId === active ? last : { runId: active }),
  );
}

/**
 * `useChat({ resume: true })` calls this GET on load, so it marks the browser, not the store: the cookie
 * goes with the page's later messages, whose run then records that its page reconnects. A GET writes no
 * value for the id it is asked for, however many it is asked (a flood, or another site's `<img>`).
 */
const RESUME_COOKIE = 'svc_ui_resume';

function withResumeCookie(response: Response): Response {
  response.headers.append(
    'set-cookie',
    `${RESUME_COOKIE}=1; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`,
  );
  return response;
}

/** True when the request carries the cookie a resuming page's browser holds. */
function resumes(request: Request): boolean {
  const cookies = request.headers.get('cookie') ?? '';
  return cookies.split(';').some((cookie) => cookie.trim() === `${RESUME_COOKIE}=1`);
}

async function getMessages(context: UIRoutesContext, clientId: string): Promise<Response> {
  const { sessions, uiRuns } = context;
  const chatId = ownedSessionId(context.owner, clientId);
  const [view, last, notes] = await Promise.all([
    sessions.describe(chatId),
    uiRuns.lastOf(chatId),
    readCallNotes(context.store, chatId),
  ]);
  let messages = view?.messages ?? [];
  const run = last.value;
  // The last run died with its process (no outcome, lease over) and no page followed it to its end.
  if (run && !view?.activeRunId && run.before >= 0) {
    const info = await sessions.runInfo(run.runId);
    if (info && !info.outcome && runIsOver(info)) {
      await uiRuns.keepInterrupted(chatId, run.runId);
      messages = await context.store.getItems(chatId);
    }
  }
  // The question of the turn in progress is not in the session yet: the resumed stream shows its answer.
  if (run && view?.activeRunId === run.runId) messages.push(...run.input);
  else if (run?.shownUpTo !== undefined) {
    // The run ended after its page left (Stop): the session keeps what that page showed, and the
    // reload shows exactly that.
    await uiRuns.settleLast(chatId);
    messages = await context.store.getItems(chatId);
  }
  const pendingApprovals = (view?.pendingApprovals ?? []).map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.arguments,
    ...(call.clientSide ? { clientSide: true as const } : {}),
  }));
  const restored = toUIMessages(messages, {
    pendingApprovals,
    toolErrors: notes.errors,
    sources: notes.sources,
  });
  return jsonResponse(200, restored, { 'cache-control': 'no-store' });
}

/** The run's events from its start as a UI message stream, noting how far the page got if it leaves. */
async function streamUI(
  context: UIRoutesContext,
  clientId: string,
  run: Pick<UIChatRun, 'runId' | 'messageId' | 'declined'>,
): Promise<Response> {
  const { runId } = run;
  const { sessions, uiRuns, sse, owner } = context;
  const chatId = ownedSessionId(owner, clientId);
  const { frames } = await sessions.events(runId, owner);
  let sent = -1;
  let ended = false;
  let finished = false;
  async function* tracked(): AsyncGenerator<SseFrame> {
    for await (const frame of frames) {
      sent = Number(frame.id);
      const { type } = JSON.parse(frame.data) as { type: string };
      finished ||= type === 'finish' || type === 'error' || type === 'abort';
      yield frame;
    }
    ended = true;
    // A log without its end: the run's process died. Its question and what was shown stay.
    if (!finished) await uiRuns.keepInterrupted(chatId, runId).catch(() => {});
    await uiRuns.shownAll(chatId, runId).catch(() => {});
  }
  return toSseResponse(
    {
      frames: uiFramesFromEvents(tracked(), {
        ...context.ui,
        runId,
        ...(run.messageId ? { messageId: run.messageId } : {}),
        ...(run.declined ? { declinedApprovals: run.declined } : {}),
      }),
      onCancel: () => {
        if (!ended) void uiRuns.pageLeft(chatId, runId, sent).catch(() => {});
      },
    },
    {
      ...sse,
      headers: {
        ...sse.headers,
        ...UI_MESSAGE_STREAM_HEADERS,
        'x-run-id': runId,
        'x-session-id': clientId,
      },
    },
  );
}
