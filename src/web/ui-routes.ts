import type { SseStreamOptions } from '../transport/sse/sse-stream-options.js';
import { toSseResponse } from '../transport/sse/sse-writer.js';
import type { ChatSessions } from './chat-sessions.js';
import { readJsonObject } from './request-body.js';
import { parseUIChatRequest, uiFramesFromEvents } from './ui-chat-request.js';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-chunk.js';

/** What the `useChat` routes need from the chat handler. */
export interface UIRoutesContext {
  sessions: ChatSessions;
  sse: SseStreamOptions;
  maxBodyBytes: number;
}

/**
 * The routes for a `useChat` front end (`@ai-sdk/react`, `api: '<basePath>/ui'`), in the AI SDK UI
 * message stream protocol, on the same shared sessions as the JSON routes: the chat id is the session;
 * approval responses continue the session's paused run (on whichever server it paused).
 * Answers `undefined` for a path that is not one of them.
 */
export async function routeUI(
  context: UIRoutesContext,
  request: Request,
  path: string,
): Promise<Response | undefined> {
  if (path === '/ui' && request.method === 'POST') return postUI(context, request);
  return undefined;
}

/** `useChat`'s request: a new message, or approval responses for the chat's paused run. */
async function postUI(context: UIRoutesContext, request: Request): Promise<Response> {
  const { sessions, sse, maxBodyBytes } = context;
  const parsed = parseUIChatRequest(await readJsonObject(request, maxBodyBytes));
  const { sessionId } = parsed;
  const runId =
    parsed.kind === 'message'
      ? await sessions.beginMessage(sessionId, [{ role: 'user', content: parsed.text }])
      : await sessions.continuePaused(sessionId, parsed.decisions);
  const { frames } = await sessions.events(runId);
  return toSseResponse(
    { frames: uiFramesFromEvents(frames) },
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
