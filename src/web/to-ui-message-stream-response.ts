import type { ServerResponse } from 'node:http';
import type { AgentStream } from '../agent/agent-stream.js';
import type { AgentEvent } from '../agent/events.js';
import { pipeSseToNode } from '../agent/server-sse/pipe-sse-to-node.js';
import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import type { SseStreamOptions } from '../agent/server-sse/sse-stream-options.js';
import { type SseSource, toSseResponse } from '../agent/server-sse/sse-writer.js';
import { createUIMessageChunkMapper, type UIMessageChunkOptions } from './to-ui-message-chunks.js';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-chunk.js';

/** Options of `toUIMessageStreamResponse` and `pipeUIMessageStream`. */
export interface UIMessageStreamOptions extends UIMessageChunkOptions, SseStreamOptions {}

/** SSE frames of the UI message stream protocol: `data: <chunk>` per chunk, then `data: [DONE]`. */
async function* uiFrames(
  events: AsyncIterable<AgentEvent>,
  options: UIMessageChunkOptions,
): AsyncGenerator<SseFrame> {
  const map = createUIMessageChunkMapper(options);
  try {
    for await (const event of events) for (const chunk of map(event)) yield { data: JSON.stringify(chunk) };
  } catch {
    // The run's failure was already sent as an `error` (or `abort`) chunk.
  }
  yield { data: '[DONE]' };
}

function uiSource(stream: AgentStream<unknown>, options: UIMessageChunkOptions): SseSource {
  return { frames: uiFrames(stream, options), onCancel: (reason) => stream.abort(reason) };
}

/**
 * The run as a Web `Response` in the AI SDK UI message stream protocol, so a `useChat` front end
 * (`@ai-sdk/react`) or `readUIMessageStream` from `ai` works unchanged against an svc-agents backend.
 * The client disconnecting aborts the run.
 * @example
 * export async function POST(req: Request) {
 *   const { messages } = await req.json();
 *   return toUIMessageStreamResponse(agent.stream(lastUserText(messages)));
 * }
 */
export function toUIMessageStreamResponse(
  stream: AgentStream<unknown>,
  options: UIMessageStreamOptions = {},
): Response {
  return toSseResponse(uiSource(stream, options), withUIHeaders(options));
}

/** The same as `toUIMessageStreamResponse`, into a Node `ServerResponse` (or Express's). */
export function pipeUIMessageStream(
  stream: AgentStream<unknown>,
  res: ServerResponse,
  options: UIMessageStreamOptions = {},
): Promise<void> {
  return pipeSseToNode(uiSource(stream, options), res, withUIHeaders(options));
}

function withUIHeaders(options: UIMessageStreamOptions): SseStreamOptions {
  // The AI SDK's parser ignores `retry:` and comments, as any SSE reader must.
  return { ...options, headers: { ...UI_MESSAGE_STREAM_HEADERS, ...options.headers } };
}
