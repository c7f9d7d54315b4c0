import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent, AgentInput } from '../agent/agent.js';
import { RunState } from '../agent/run-state.js';
import type { SseStreamOptions } from '../agent/server-sse/sse-stream-options.js';
import { toSseResponse } from '../agent/server-sse/sse-writer.js';
import { type ImagePart, imagePart } from '../api/parts/image-part.js';
import { isHttpUrl } from '../api/parts/read-part-bytes.js';
import type { ChatMessage } from '../api/types/chat.js';
import { type ApprovalDecision, applyDecisions } from './apply-decisions.js';
import { type ChatStore, createMemoryChatStore } from './chat-store.js';
import { handleNodeRequest, requestPathname } from './handle-node-request.js';
import { defaultMaxBodyBytes, readJsonObject } from './request-body.js';
import { RunLog } from './run-log.js';
import { parseUIChatRequest, uiFramesFromLog } from './ui-chat-request.js';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-chunk.js';
import { ChatRequestError, errorResponse, jsonResponse } from './web-error.js';

/**
 * The agent of a chat: one for all sessions, or one per session (e.g. with the session's tools). `vision`
 * is true when the conversation holds an image, so a factory can answer with a vision model.
 */
export type ChatAgent =
  | Agent<unknown, unknown>
  | ((session: {
      sessionId: string;
      vision: boolean;
    }) => Agent<unknown, unknown> | Promise<Agent<unknown, unknown>>);

/** Options of `createChatHandler`. */
export interface ChatHandlerOptions {
  /** The agent that answers. */
  agent: ChatAgent;
  /** Where conversations and paused runs are kept. @default createMemoryChatStore() */
  store?: ChatStore;
  /** The path the routes live under. @default '/api' */
  basePath?: string;
  /** Heartbeat and `retry:` of the event streams. */
  sse?: SseStreamOptions;
  /** A run nobody listens to for this long is aborted. @default 60_000 */
  abandonAfterMs?: number;
  /** How long the events of an ended run stay available for reconnects. @default 300_000 */
  keepEndedRunsMs?: number;
  /**
   * Decides whether a request may use the routes, before its body is read: `true` lets it through,
   * `false` answers 401, a `Response` is answered as is. Without it the routes are open to whoever
   * reaches them. @example authorize: (request) => request.headers.get('authorization') === `Bearer ${token}`
   */
  authorize?: (request: Request) => boolean | Response | Promise<boolean | Response>;
  /** A request body past this many bytes is answered 413 without being buffered. @default 4 MiB */
  maxBodyBytes?: number;
  /** Told about a failure of the handler itself, which is answered 500. @default console.error */
  onError?: (error: unknown) => void;
  /** Test seams. */
  _internal?: { generateId?: () => string };
}

/** The routes of `createChatHandler` as a fetch handler and as a Node listener. */
export interface ChatHandler {
  /** Answers a Web `Request` (Hono, Next.js route handlers, Bun, Deno); 404 outside `basePath`. */
  fetch(request: Request): Promise<Response>;
  /** Answers a Node request (`http.createServer`, Express); outside `basePath` calls `next` or answers 404. */
  node(req: IncomingMessage, res: ServerResponse, next?: () => void): Promise<void>;
  /** True when the path is one of the handler's. */
  matches(pathname: string): boolean;
  /** Aborts every run in progress. */
  close(): void;
}

interface LiveRun {
  log: RunLog;
  sessionId: string;
  /** Settles once the outcome is stored (the session saved, a paused run kept). */
  settled: Promise<void>;
}

/**
 * A chat backend in a few routes (under `basePath`, default `/api`), streaming `AgentEvent`s as SSE:
 * - `POST /chat` `{ message, sessionId?, images? }`: runs the agent on the session's conversation (images as
 *   http(s) or `data:image/...` URLs, checked as `imagePart` checks them); the headers
 *   `x-run-id` and `x-session-id` name the run and the session.
 * - `POST /runs/:runId/approvals` `{ decisions: [{ toolCallId, approved, reason? }] }`: resumes a run
 *   paused for approvals; the continued stream is a new run (for an agent with a `store`, the same
 *   stored run continues: the first run's id is the agent's `runId`).
 * - `GET /runs/:runId/events` (with `Last-Event-ID`): reconnects to a run, replaying what was missed.
 * - `GET /sessions/:sessionId`: the conversation and the run in progress, if any.
 * - `POST /ui`: the same for a `useChat` front end (`@ai-sdk/react`, `api: '/api/ui'`), in the AI SDK UI
 *   message stream protocol: the chat id is the session; approval responses resume the paused run.
 * A client disconnecting does not stop the run (it can reconnect); a run with no client for
 * `abandonAfterMs` is aborted.
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const {
    agent,
    store = createMemoryChatStore(),
    basePath = '/api',
    sse = {},
    abandonAfterMs = 60_000,
    keepEndedRunsMs = 300_000,
    authorize,
    maxBodyBytes = defaultMaxBodyBytes,
    onError = console.error,
  } = options;
  const generateId = options._internal?.generateId ?? randomUUID;
  const base = basePath.replace(/\/+$/, '');
  const runs = new Map<string, LiveRun>();
  const activeBySession = new Map<string, string>();
  /** The run of a session paused for approvals, for `useChat` requests (which name the chat, not the run). */
  const pausedBySession = new Map<string, string>();
  const agentFor = (sessionId: string, messages: readonly ChatMessage[]) =>
    typeof agent === 'function' ? agent({ sessionId, vision: holdsImage(messages) }) : agent;

  /**
   * Starts a run; its id is the agent's `runId` too (the key in an agent's `store`), except when it
   * continues a paused run: then the agent continues `agentRunId`, the same stored record.
   */
  async function startRun(sessionId: string, input: AgentInput, agentRunId?: string): Promise<string> {
    const runId = generateId();
    const messages = input instanceof RunState ? input.messages : (input as readonly ChatMessage[]);
    const stream = (await agentFor(sessionId, messages)).stream(input, { runId: agentRunId ?? runId });
    const log = new RunLog(stream, { abandonAfterMs });
    activeBySession.set(sessionId, runId);
    const settled = log.done.then(async (result) => {
      try {
        if (result) await store.saveSession(sessionId, result.messages);
        if (result?.status === 'interrupted') {
          await store.savePausedRun(runId, {
            sessionId,
            state: JSON.stringify(result.state),
            agentRunId: result.runId,
          });
          pausedBySession.set(sessionId, runId);
        }
      } finally {
        if (activeBySession.get(sessionId) === runId) activeBySession.delete(sessionId);
        setTimeout(() => runs.delete(runId), keepEndedRunsMs).unref?.();
      }
    });
    runs.set(runId, { log, sessionId, settled: settled.catch(() => {}) });
    return runId;
  }

  function streamRun(runId: string, after?: number): Response {
    const run = runs.get(runId);
    if (!run)
      throw new ChatRequestError({
        status: 404,
        message: `runId: no run '${runId}' in progress or recently ended`,
      });
    return toSseResponse(
      { frames: run.log.subscribe(after) },
      {
        ...sse,
        headers: { ...sse.headers, 'x-run-id': runId, 'x-session-id': run.sessionId },
      },
    );
  }

  /** Starts a run answering `message` (and its images) in the session's conversation. */
  async function beginMessage(sessionId: string, message: string, images: ImagePart[] = []): Promise<string> {
    const active = activeBySession.get(sessionId);
    if (active)
      throw new ChatRequestError({
        status: 409,
        message: `sessionId: run ${active} is still in progress in this session`,
      });
    const history = (await store.loadSession(sessionId)) ?? [];
    const content = images.length > 0 ? [{ type: 'text' as const, text: message }, ...images] : message;
    const input: ChatMessage[] = [...history, { role: 'user', content }];
    return startRun(sessionId, input);
  }

  /** Resumes a paused run with the decisions (`body.decisions`); a bad request keeps it paused. */
  async function resume(runId: string, decisions: unknown): Promise<string> {
    await runs.get(runId)?.settled;
    const paused = await store.takePausedRun(runId);
    if (!paused)
      throw new ChatRequestError({
        status: 404,
        message: `runId: run '${runId}' is not waiting for approvals`,
      });
    if (pausedBySession.get(paused.sessionId) === runId) pausedBySession.delete(paused.sessionId);
    try {
      const saved = (JSON.parse(paused.state) as { messages?: ChatMessage[] }).messages ?? [];
      const state = RunState.fromJSON(paused.state, await agentFor(paused.sessionId, saved));
      applyDecisions(state, decisions);
      return await startRun(paused.sessionId, state, paused.agentRunId);
    } catch (error) {
      // A bad decision must not lose the paused run: keep it for a corrected request.
      await store.savePausedRun(runId, paused);
      pausedBySession.set(paused.sessionId, runId);
      throw error;
    }
  }

  async function postChat(request: Request): Promise<Response> {
    const body = await readJsonObject(request, maxBodyBytes);
    const { message, sessionId: given, images } = body;
    if (typeof message !== 'string' || message.trim() === '')
      throw new ChatRequestError({ status: 400, message: 'message: required non-empty string' });
    if (given !== undefined && (typeof given !== 'string' || !/^[\w.-]{1,128}$/.test(given)))
      throw new ChatRequestError({
        status: 400,
        message: 'sessionId: must be 1-128 letters, digits, _ . or -',
      });
    return streamRun(await beginMessage(given ?? generateId(), message, readImages(images)));
  }

  async function postApprovals(request: Request, runId: string): Promise<Response> {
    const body = await readJsonObject(request, maxBodyBytes);
    return streamRun(await resume(runId, body.decisions));
  }

  /** `useChat`'s request: a new message, or approval responses for the chat's paused run. */
  async function postUI(request: Request): Promise<Response> {
    const parsed = parseUIChatRequest(await readJsonObject(request, maxBodyBytes));
    const { sessionId } = parsed;
    let runId: string;
    if (parsed.kind === 'message') runId = await beginMessage(sessionId, parsed.text);
    else {
      await runs.get(activeBySession.get(sessionId) ?? '')?.settled;
      const paused = pausedBySession.get(sessionId);
      if (!paused)
        throw new ChatRequestError({
          status: 404,
          message: `id: chat '${sessionId}' has no run waiting for approvals`,
        });
      runId = await resume(paused, parsed.decisions satisfies ApprovalDecision[]);
    }
    const log = runs.get(runId)!.log;
    return toSseResponse(
      { frames: uiFramesFromLog(log) },
      {
        ...sse,
        headers: {
          ...sse.headers,
          ...UI_MESSAGE_STREAM_HEADERS,
          'x-run-id': runId,
          'x-session-id': sessionId,
        },
      },
    );
  }

  async function getSession(sessionId: string): Promise<Response> {
    const messages = await store.loadSession(sessionId);
    const activeRunId = activeBySession.get(sessionId);
    if (!messages && !activeRunId)
      throw new ChatRequestError({ status: 404, message: `sessionId: no session '${sessionId}'` });
    return jsonResponse(200, { sessionId, messages: messages ?? [], activeRunId: activeRunId ?? null });
  }

  async function route(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(base.length);
    const method = request.method;
    if (path === '/chat' && method === 'POST') return postChat(request);
    if (path === '/ui' && method === 'POST') return postUI(request);
    const approvals = /^\/runs\/([\w.-]+)\/approvals$/.exec(path);
    if (approvals && method === 'POST') return postApprovals(request, approvals[1]!);
    const events = /^\/runs\/([\w.-]+)\/events$/.exec(path);
    if (events && method === 'GET') {
      const last = request.headers.get('last-event-id') ?? url.searchParams.get('lastEventId');
      return streamRun(events[1]!, last === null || last === '' ? undefined : Number(last));
    }
    const session = /^\/sessions\/([\w.-]+)$/.exec(path);
    if (session && method === 'GET') return getSession(session[1]!);
    throw new ChatRequestError({ status: 404, message: `${method} ${url.pathname}: no such route` });
  }

  const matches = (pathname: string) => pathname === base || pathname.startsWith(`${base}/`);
  const handler: ChatHandler = {
    matches,
    async fetch(request) {
      try {
        if (authorize) {
          const verdict = await authorize(request);
          if (verdict instanceof Response) return verdict;
          if (verdict !== true)
            throw new ChatRequestError({
              status: 401,
              message: 'authorization: this request is not allowed',
            });
        }
        return await route(request);
      } catch (error) {
        if (!(error instanceof ChatRequestError)) onError(error);
        return errorResponse(error);
      }
    },
    async node(req, res, next) {
      const pathname = requestPathname(req.url);
      if (pathname !== undefined && !matches(pathname) && next) return next();
      await handleNodeRequest(handler.fetch, req, res, { maxBodyBytes, onError });
    },
    close() {
      for (const run of runs.values()) run.log.abort(new Error('The chat handler closed.'));
    },
  };
  return handler;
}

/** `images` of `POST /chat`: http(s) addresses or `data:image/...` URIs, checked as the client checks them. */
function readImages(images: unknown): ImagePart[] {
  if (images === undefined) return [];
  if (!Array.isArray(images) || images.length > 4) {
    throw new ChatRequestError({ status: 400, message: 'images: must be an array of at most 4 image URLs' });
  }
  return images.map((url, index) => {
    if (typeof url !== 'string' || !(isHttpUrl(url) || url.startsWith('data:'))) {
      throw new ChatRequestError({
        status: 400,
        message: `images[${index}]: must be an http(s) address or a data:image/... URI`,
      });
    }
    try {
      return imagePart(url);
    } catch (error) {
      throw new ChatRequestError({ status: 400, message: `images[${index}]: ${(error as Error).message}` });
    }
  });
}

/** True when a message of the conversation carries an image. */
function holdsImage(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'user' &&
      Array.isArray(message.content) &&
      message.content.some((part) => part.type === 'image_url'),
  );
}
