/**
 * svc-agents/web: agents on the web. Agent runs as SSE (`stream.toResponse()` / `stream.pipeTo(res)` live on
 * `AgentStream` itself), in the AI SDK UI message stream protocol for `useChat` front ends, and a chat
 * backend with sessions, approvals and reconnects.
 */
export type { AgentEventJson, SerializedError } from '../agent/agent-event-json.js';
export { toAgentEventJson } from '../agent/agent-event-json.js';
export type { SseFrame } from '../agent/server-sse/sse-frame.js';
export type { SseStreamOptions } from '../agent/server-sse/sse-stream-options.js';
export type { ApprovalDecision } from './apply-decisions.js';
export { type ChatStore, createMemoryChatStore, type PausedRun } from './chat-store.js';
export {
  type ChatAgent,
  type ChatHandler,
  type ChatHandlerOptions,
  createChatHandler,
} from './create-chat-handler.js';
export { handleNodeRequest, type NodeRequestOptions } from './handle-node-request.js';
export { createUIMessageChunkMapper, type UIMessageChunkOptions } from './to-ui-message-chunks.js';
export {
  pipeUIMessageStream,
  toUIMessageStreamResponse,
  type UIMessageStreamOptions,
} from './to-ui-message-stream-response.js';
export { UI_MESSAGE_STREAM_HEADERS, type UIFinishReason, type UIMessageChunk } from './ui-message-chunk.js';
export { ChatRequestError } from './web-error.js';
