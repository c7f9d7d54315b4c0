import { randomUUID } from 'node:crypto';
import type { Store } from '../agent/durable/store.js';
import type { SseStreamOptions } from '../agent/server-sse/sse-stream-options.js';
import { toSseResponse } from '../agent/server-sse/sse-writer.js';
import { type ImagePart, imagePart } from '../api/parts/image-part.js';
import { isHttpUrl } from '../api/parts/read-part-bytes.js';
import type { ChatMessage } from '../api/types/chat.js';
import type { RunQueue } from '../queue/run-queue.js';
import { memoryStore } from '../stores/memory-store.js';
import { type AuthorizeVerdict, type ChatOwner, clientSessionId, ownedSessionId } from './chat-owner.js';
import type { ChatRunner } from './chat-runner.js';
import { createChatSessions } from './chat-sessions.js';
import { requireChatStateStore } from './chat-state.js';
import type { ChatAgent } from './execute-chat-run.js';
import { inProcessChatRunner } from './in-process-chat-runner.js';
import { type MountedHandler, mountHandler } from './mount-handler.js';
import { queueChatRunner } from './queue-chat-runner.js';
import { defaultMaxBodyBytes, readJsonObject } from './request-body.js';
import type { UIMessageChunkOptions } from './to-ui-message-chunks.js';
import { createUIChatRuns } from './ui-chat-runs.js';
import { routeUI } from './ui-routes.js';
import { ChatRequestError, jsonResponse } from './web-error.js';

export type { ChatAgent, ChatAgentContext } from './execute-chat-run.js';

/** Options of `createChatHandler`. */
export interface ChatHandlerOptions {
  /** The agent that answers (executed by the default in-process runner; a custom `runner` brings its own). */
  agent?: ChatAgent;
  /**
   * Where sessions, runs, paused runs and each run's event log are kept: the agent's `Store`, with the run
   * event log and shared values (`memoryStore`, `fileStore`, `redisStore`, `postgresStore`). Servers
   * sharing one Redis or PostgreSQL store serve one chat together. @default memoryStore() (evicting)
   */
  store?: Store;
  /** Where runs execute. @default inProcessChatRunner({ agent, store }), or queueChatRunner with `queue` */
  runner?: ChatRunner;
  /**
   * Runs each turn on the queue's workers instead of in this process (`queueChatRunner({ queue, store })`):
   * the web server only relays events. The workers serve the chat's agent as `'chat'` and share the store.
   */
  queue?: RunQueue;
  /** The path the routes live under. @default '/api' */
  basePath?: string;
  /** Heartbeat and `retry:` of the event streams. */
  sse?: SseStreamOptions;
  /** @deprecated Ignored: a run goes on without listeners, its events stored for a reconnect; stop it with `POST /runs/:runId/stop`. */
  abandonAfterMs?: number;
  /** How long the events of an ended run stay available for reconnects. @default 300_000 */
  keepEndedRunsMs?: number;
  /** How long a running run is vouched for by its process between renewals (a crashed process's run ends after it). @default 30_000 */
  leaseMs?: number;
  /** How often a relayed stream or a stop listener re-reads the store, since signals are best effort. @default 1_000 */
  recheckMs?: number;
  /**
   * Says who a request acts for, before its body is read: an owner `{ userId }` binds every session and
   * run the request makes to that user, and another user's ids then answer 404 on every route; `true`
   * lets it through as the anonymous owner (one user: `serve`, a single-user tool), `false` answers 401,
   * a `Response` is answered as is. Without it the routes are open to whoever reaches them, as one
   * anonymous owner. See docs/security.md.
   * @example authorize: async (request) => { const user = await verify(request); return user ? { userId: user.id } : false }
   */
  authorize?: (request: Request) => AuthorizeVerdict | Promise<AuthorizeVerdict>;
  /** A request body past this many bytes is answered 413 without being buffered. @default 4 MiB */
  maxBodyBytes?: number;
  /** Told about a failure of the handler itself, which is answered 500. @default console.error */
  onError?: (error: unknown) => void;
  /**
   * The `useChat` routes' stream: `messageMetadata({ event })` adds to each message's metadata (by
   * default `{ runId }` on start, `{ finishReason, usage }` on finish); `onError(error)` is the text an
   * `error` chunk shows (default `'An error occurred.'`, as the AI SDK: upstream messages stay hidden).
   */
  ui?: Pick<UIMessageChunkOptions, 'messageMetadata' | 'onError'>;
  /** Test seams. */
  _internal?: { generateId?: () => string };
}

/** The routes of `createChatHandler` as a fetch handler and as a Node listener. */
export interface ChatHandler extends MountedHandler {
  /** Aborts the runs this process executes and closes the runner (not the store, which is the caller's). */
  close(): Promise<void>;
}

/**
 * A chat backend in a few routes (under `basePath`, default `/api`), streaming `AgentEvent`s as SSE, with
 * every state in the shared `store`, so several servers behind a load balancer serve one chat:
 * - `POST /chat` `{ message, sessionId?, images?, rejectPending? }`: runs the agent on the session's
 *   conversation (images as http(s) or `data:image/...` URLs, checked as `imagePart` checks them); the
 *   headers `x-run-id` and `x-session-id` name the run and the session. A session with a pending approval
 *   answers 409 naming the pending tool calls, unless `rejectPending: true` declines them.
 * - `POST /runs/:runId/approvals` `{ decisions: [{ toolCallId, approved, reason? }] }`: continues a run
 *   paused for approvals (on any server; a decision is applied once) as a new run (a new event log),
 *   while the agent continues the same stored run. A client-side tool's call (a tool without `execute`)
 *   is answered the same way with `{ toolCallId, output }`.
 * - `GET /runs/:runId/events` (with `Last-Event-ID`): reconnects to a run on any server, replaying what
 *   was missed from the stored log and following the rest.
 * - `POST /runs/:runId/stop`: stops the run wherever it executes; answers its outcome.
 * - `GET /sessions/:sessionId`: the conversation, the run in progress and the pending approvals.
 * - `POST /ui`: the same for a `useChat` front end (`@ai-sdk/react`, `api: '/api/ui'`); see `routeUI`.
 * A client disconnecting does not stop the run: its events stay in the store for a reconnect.
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const {
    agent,
    basePath = '/api',
    sse = {},
    keepEndedRunsMs = 300_000,
    leaseMs = 30_000,
    recheckMs = 1_000,
    authorize,
    maxBodyBytes = defaultMaxBodyBytes,
    onError = console.error,
  } = options;
  const store = requireChatStateStore(options.store ?? memoryStore());
  if (!options.runner && !options.queue && !agent) {
    throw new ChatRequestError({
      status: 500,
      message: 'agent: required unless a runner or a queue is given',
    });
  }
  const runner =
    options.runner ??
    (options.queue && queueChatRunner({ queue: options.queue, store, leaseMs, keepEndedRunsMs })) ??
    inProcessChatRunner({ agent: agent!, store, leaseMs, keepEndedRunsMs, stopCheckMs: recheckMs, onError });
  const generateId = options._internal?.generateId ?? randomUUID;
  const base = basePath.replace(/\/+$/, '');
  const sessions = createChatSessions({ store, runner, generateId, leaseMs, keepEndedRunsMs, recheckMs });
  const uiRuns = createUIChatRuns(store, sessions);

  async function streamRun(runId: string, owner: ChatOwner | undefined, after?: number): Promise<Response> {
    const { sessionId, frames } = await sessions.events(runId, owner, after);
    const shown = clientSessionId(owner, sessionId) ?? sessionId;
    return toSseResponse(
      { frames },
      { ...sse, headers: { ...sse.headers, 'x-run-id': runId, 'x-session-id': shown } },
    );
  }

  async function postChat(request: Request, owner: ChatOwner | undefined): Promise<Response> {
    const body = await readJsonObject(request, maxBodyBytes);
    const { message, sessionId: given, images, rejectPending } = body;
    if (typeof message !== 'string' || message.trim() === '')
      throw new ChatRequestError({ status: 400, message: 'message: required non-empty string' });
    if (given !== undefined && (typeof given !== 'string' || !/^[\w.-]{1,128}$/.test(given)))
      throw new ChatRequestError({
        status: 400,
        message: 'sessionId: must be 1-128 letters, digits, _ . or -',
      });
    if (rejectPending !== undefined && typeof rejectPending !== 'boolean')
      throw new ChatRequestError({ status: 400, message: 'rejectPending: must be a boolean' });
    const parts = readImages(images);
    const content = parts.length > 0 ? [{ type: 'text' as const, text: message }, ...parts] : message;
    const userMessage: ChatMessage = { role: 'user', content };
    // A client-chosen id is namespaced by its owner; a server-made one is a random UUID.
    const sessionId = ownedSessionId(owner, given ?? generateId());
    const runId = await sessions.beginMessage(sessionId, [userMessage], {
      rejectPending: rejectPending === true,
      owner,
    });
    return streamRun(runId, owner);
  }

  async function postApprovals(request: Request, runId: string, owner: ChatOwner | undefined) {
    const body = await readJsonObject(request, maxBodyBytes);
    const sessionId = await sessions.sessionOfRun(runId, owner);
    return streamRun(await sessions.continuePaused(sessionId, body.decisions, runId, owner), owner);
  }

  async function getSession(sessionId: string, owner: ChatOwner | undefined): Promise<Response> {
    const view = await sessions.describe(ownedSessionId(owner, sessionId));
    if (!view) throw new ChatRequestError({ status: 404, message: `sessionId: no session '${sessionId}'` });
    return jsonResponse(200, { ...view, sessionId });
  }

  async function route(request: Request, owner: ChatOwner | undefined, path: string): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method;
    if (path === '/chat' && method === 'POST') return postChat(request, owner);
    const uiContext = {
      sessions,
      uiRuns,
      store,
      sse,
      maxBodyBytes,
      owner,
      ...(options.ui ? { ui: options.ui } : {}),
    };
    const ui = await routeUI(uiContext, request, path);
    if (ui) return ui;
    const run = /^\/runs\/([\w.-]+)\/(approvals|events|stop)$/.exec(path);
    if (run?.[2] === 'approvals' && method === 'POST') return postApprovals(request, run[1]!, owner);
    if (run?.[2] === 'stop' && method === 'POST') {
      await sessions.ownRun(run[1]!, owner);
      return jsonResponse(200, { runId: run[1], status: await sessions.stop(run[1]!) });
    }
    if (run?.[2] === 'events' && method === 'GET') {
      const last = request.headers.get('last-event-id') ?? url.searchParams.get('lastEventId');
      return streamRun(run[1]!, owner, parseLastEventId(last));
    }
    const session = /^\/sessions\/([\w.-]+)$/.exec(path);
    if (session && method === 'GET') return getSession(session[1]!, owner);
    throw new ChatRequestError({ status: 404, message: `${method} ${url.pathname}: no such route` });
  }

  return mountHandler({
    base,
    authorize,
    route,
    close: () => runner.close(),
    maxBodyBytes,
    onError,
  });
}

/**
 * `Last-Event-ID` (or `?lastEventId=`): the id of the last event the client got, digits only and below
 * 2^31 (the log's ids are 32-bit integers in PostgreSQL), or -1 / empty for "from the start".
 */
function parseLastEventId(last: string | null): number | undefined {
  if (last === null || last === '' || last === '-1') return undefined;
  const after = /^\d{1,10}$/.test(last) ? Number(last) : Number.NaN;
  if (!(after < 2 ** 31))
    throw new ChatRequestError({
      status: 400,
      message: 'Last-Event-ID: must be an event id: digits only, below 2147483648 (or -1 for the start)',
    });
  return after;
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
