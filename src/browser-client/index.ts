/**
 * svc-agents/client: a tiny typed browser client (no dependencies) for a `createChatHandler` backend.
 * It reads the run's `AgentEvent`s over SSE, reconnects with `Last-Event-ID` when the connection drops,
 * and exposes each run as an async iterable.
 * @example
 * const chat = createChatClient({ baseUrl: '/api' });
 * const run = chat.send('Weather in Paris?');
 * for await (const event of run) if (event.type === 'text-delta') output.textContent += event.text;
 */
import type { AgentEventJson } from '../agent/agent-event-json.js';
import type { ApprovalDecision } from '../agent/approval-decision.js';
import { parseSse } from './parse-sse.js';

export type { AgentEventJson, SerializedError } from '../agent/agent-event-json.js';
export type { ChatMessage } from '../api/types/chat.js';

/** Options of `createChatClient`. */
export interface ChatClientOptions {
  /** Where the chat handler's routes live. @default '/api' */
  baseUrl?: string;
  /** The fetch to use (tests, custom auth). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Headers sent with every request (e.g. authorization). */
  headers?: Record<string, string>;
  /**
   * Reconnection attempts in a row without a new event before the run's iteration fails with a
   * `ChatRunLostError` (a dropped connection, or a stream that ended without the run's last event).
   * @default 5
   */
  maxReconnects?: number;
  /** Wait before reconnecting, in ms, unless the server advised another with `retry:`. @default 1_000 */
  retryMs?: number;
}

/** A human's decision about a call the run waits for: the library's one `ApprovalDecision`. */
export type ClientApprovalDecision = ApprovalDecision;

/** One run as the client follows it: iterate it once for its events. */
export interface ChatRun extends AsyncIterable<AgentEventJson> {
  /** The run's id, known once the server answered. */
  readonly runId: Promise<string>;
  /** The session's id, known once the server answered. */
  readonly sessionId: Promise<string>;
  /** The id of the last event received (what a reconnect sends as `Last-Event-ID`). */
  readonly lastEventId: string | undefined;
  /** Stops reading (the server keeps the run going for a later reconnect). */
  close(): void;
}

/** A session as `GET /sessions/:id` answers. */
export interface ChatSessionSnapshot {
  sessionId: string;
  messages: import('../api/types/chat.js').ChatMessage[];
  activeRunId: string | null;
  /** The run paused for approvals, if any (decide it with `decide(pausedRunId, ...)`). */
  pausedRunId?: string | null;
  /** The tool calls waiting for a decision. */
  pendingApprovals?: Array<{ toolCallId: string; toolName: string; arguments: unknown }>;
}

/** An error answer of the chat backend. */
export class ChatClientError extends Error {
  /** The HTTP status. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ChatClientError';
    this.status = status;
  }
}

/**
 * The run's events stopped coming: `attempts` reconnections in a row brought no new event (the stream
 * kept dropping, or kept ending without the run's `finish`, `error` or `abort`). The run may still go
 * on on the server: `reconnect(runId, { lastEventId })` later, or read the session.
 */
export class ChatRunLostError extends Error {
  /** The run that was followed. */
  readonly runId: string | undefined;
  /** The id of the last event received. */
  readonly lastEventId: string | undefined;
  /** The reconnections made in a row without a new event. */
  readonly attempts: number;
  constructor(options: { runId?: string; lastEventId?: string; attempts: number; cause?: unknown }) {
    super(
      `Run ${options.runId ?? '(unknown)'}: no new event after ${options.attempts} reconnections (last event ${options.lastEventId ?? 'none'})`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ChatRunLostError';
    this.runId = options.runId;
    this.lastEventId = options.lastEventId;
    this.attempts = options.attempts;
  }
}

const TERMINAL = new Set(['finish', 'error', 'abort']);

/** Creates a client of a `createChatHandler` backend. */
export function createChatClient(options: ChatClientOptions = {}) {
  const { baseUrl = '/api', headers = {}, maxReconnects = 5, retryMs = 1_000 } = options;
  const doFetch =
    options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));
  const base = baseUrl.replace(/\/+$/, '');

  async function request(path: string, init: RequestInit): Promise<Response> {
    const response = await doFetch(`${base}${path}`, { ...init, headers: { ...headers, ...init.headers } });
    if (!response.ok) {
      const body = (await response.json().catch(() => undefined)) as
        | { error?: { message?: string } }
        | undefined;
      throw new ChatClientError(response.status, body?.error?.message ?? `HTTP ${response.status}`);
    }
    return response;
  }

  function follow(
    open: (signal: AbortSignal) => Promise<Response>,
    knownRunId?: string,
    startAfter?: string,
  ): ChatRun {
    const controller = new AbortController();
    let resolveRun: (id: string) => void = () => {};
    let resolveSession: (id: string) => void = () => {};
    let rejectIds: (error: unknown) => void = () => {};
    const runId = new Promise<string>((resolve, reject) => {
      resolveRun = resolve;
      rejectIds = reject;
    });
    const sessionId = new Promise<string>((resolve, reject) => {
      resolveSession = resolve;
      const previous = rejectIds;
      rejectIds = (error) => {
        previous(error);
        reject(error);
      };
    });
    runId.catch(() => {});
    sessionId.catch(() => {});
    if (knownRunId) resolveRun(knownRunId);
    const run = {
      runId,
      sessionId,
      lastEventId: startAfter,
      close: () => controller.abort(),
      async *[Symbol.asyncIterator](): AsyncGenerator<AgentEventJson> {
        let wait = retryMs;
        let failures = 0;
        let currentRunId = knownRunId;
        const lost = (cause?: unknown) =>
          new ChatRunLostError({
            ...(currentRunId === undefined ? {} : { runId: currentRunId }),
            ...(run.lastEventId === undefined ? {} : { lastEventId: run.lastEventId }),
            attempts: failures - 1,
            cause,
          });
        let response: Response;
        try {
          response = await open(controller.signal);
        } catch (error) {
          rejectIds(error);
          throw error;
        }
        for (;;) {
          const id = response.headers.get('x-run-id');
          const session = response.headers.get('x-session-id');
          if (id) {
            currentRunId = id;
            resolveRun(id);
          }
          if (session) resolveSession(session);
          try {
            for await (const item of parseSse(response.body!)) {
              if (item.kind === 'retry') {
                wait = item.ms;
                continue;
              }
              if (item.message.id !== undefined) run.lastEventId = item.message.id;
              const event = JSON.parse(item.message.data) as AgentEventJson;
              failures = 0;
              yield event;
              if (TERMINAL.has(event.type)) return;
            }
            // The stream ended cleanly without the run's last event (a proxy cut, a run whose log is
            // gone): as much a failure as a dropped connection, or the client would reconnect forever.
            if (controller.signal.aborted) return;
            if (++failures > maxReconnects) throw lost();
          } catch (error) {
            if (controller.signal.aborted) return;
            if (error instanceof ChatRunLostError) throw error;
            if (++failures > maxReconnects) throw lost(error);
          }
          if (controller.signal.aborted) return;
          // The connection ended before the run did: reconnect where we left off.
          await new Promise((resolve) => setTimeout(resolve, wait));
          const current = await runId;
          const last = run.lastEventId;
          for (;;) {
            try {
              response = await request(`/runs/${encodeURIComponent(current)}/events`, {
                method: 'GET',
                headers: last === undefined ? {} : { 'last-event-id': last },
                signal: controller.signal,
              });
              break;
            } catch (error) {
              if (controller.signal.aborted || (error as ChatClientError).status === 404) throw error;
              if (++failures > maxReconnects) throw lost(error);
              await new Promise((resolve) => setTimeout(resolve, wait));
            }
          }
        }
      },
    };
    return run;
  }

  const post = (path: string, body: unknown) => (signal: AbortSignal) =>
    request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });

  return {
    /**
     * Sends a user message (in `sessionId`'s conversation, or a new one) and follows the run; `images`
     * (http(s) addresses or `data:image/...` URIs) go with it, to a vision model.
     */
    send(message: string, sendOptions: { sessionId?: string; images?: string[] } = {}): ChatRun {
      return follow(post('/chat', { message, ...sendOptions }));
    },
    /** Answers the approval requests of a paused run and follows the continued run. */
    decide(runId: string, decisions: ClientApprovalDecision[]): ChatRun {
      return follow(post(`/runs/${encodeURIComponent(runId)}/approvals`, { decisions }));
    },
    /** Follows a run already going (after a page reload): from the start, or after `lastEventId`. */
    reconnect(runId: string, reconnectOptions: { lastEventId?: string } = {}): ChatRun {
      const last = reconnectOptions.lastEventId;
      return follow(
        (signal) =>
          request(`/runs/${encodeURIComponent(runId)}/events`, {
            method: 'GET',
            headers: last === undefined ? {} : { 'last-event-id': last },
            signal,
          }),
        runId,
        last,
      );
    },
    /**
     * Stops a run wherever it executes (`POST /runs/:id/stop`); answers how it ended (`stopped`, or how it
     * had already ended; `running` if it had not ended after the server's wait).
     */
    async stop(runId: string): Promise<string> {
      const response = await request(`/runs/${encodeURIComponent(runId)}/stop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return ((await response.json()) as { status: string }).status;
    },
    /** The conversation of a session, its run in progress and its pending approvals. */
    async session(sessionId: string): Promise<ChatSessionSnapshot> {
      const response = await request(`/sessions/${encodeURIComponent(sessionId)}`, { method: 'GET' });
      return (await response.json()) as ChatSessionSnapshot;
    },
  };
}

/** The client `createChatClient` returns. */
export type ChatClient = ReturnType<typeof createChatClient>;
