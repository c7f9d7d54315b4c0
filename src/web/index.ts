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
export { type ChatCallNotes, readCallNotes } from './chat-call-notes.js';
export type { AuthorizeVerdict, ChatOwner } from './chat-owner.js';
export { type ChatRunObserverOptions, chatRunObserver } from './chat-run-observer.js';
export type { ChatRunContinue, ChatRunner, ChatRunStart } from './chat-runner.js';
export type { ChatSessionView } from './chat-sessions.js';
export {
  type ChatRunInfo,
  type ChatRunOutcome,
  type ChatStateStore,
  chatKeys,
  type PausedChatRun,
  type PendingApproval,
} from './chat-state.js';
export {
  type ChatAgent,
  type ChatAgentContext,
  type ChatHandler,
  type ChatHandlerOptions,
  createChatHandler,
} from './create-chat-handler.js';
export { type ExecuteChatRunOptions, executeChatRun, settleChatRun } from './execute-chat-run.js';
export { handleNodeRequest, type NodeRequestOptions } from './handle-node-request.js';
export { type InProcessChatRunnerOptions, inProcessChatRunner } from './in-process-chat-runner.js';
export {
  createInspectorHandler,
  type InspectorHandler,
  type InspectorHandlerOptions,
} from './inspector/create-inspector-handler.js';
export type { InspectorAgent, InspectorAgentContext } from './inspector/inspector-agents.js';
export {
  DEFAULT_CHAT_AGENT_NAME,
  type QueueChatRunnerOptions,
  queueChatRunner,
} from './queue-chat-runner.js';
export { type RelayRunEventsOptions, relayRunEvents } from './relay-run-events.js';
export {
  createUIMessageChunkMapper,
  DECLINED_TEXT,
  MASKED_ERROR_TEXT,
  toUIUsage,
  type UIChunkLogEvent,
  type UIMessageChunkOptions,
} from './to-ui-message-chunks.js';
export {
  pipeUIMessageStream,
  toUIMessageStreamResponse,
  type UIMessageStreamOptions,
} from './to-ui-message-stream-response.js';
export { type ToUIMessagesOptions, toUIMessages } from './to-ui-messages.js';
export { INTERRUPTED_TEXT } from './ui-chat-request.js';
export type { UIChunkWriter, UIWritableChunk } from './ui-chunk-writer.js';
export type { UIMessage, UIMessagePart, UIToolPart } from './ui-message.js';
export { UI_MESSAGE_STREAM_HEADERS, type UIFinishReason, type UIMessageChunk } from './ui-message-chunk.js';
export { ChatRequestError } from './web-error.js';
