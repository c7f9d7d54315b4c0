/**
 * The chunks of the AI SDK's UI message stream protocol (v1, `x-vercel-ai-ui-message-stream: v1`) that
 * svc-agents emits, as `useChat` from `@ai-sdk/react` and `readUIMessageStream` from `ai` parse them.
 * Kept as our own types so that svc-agents does not depend on `ai`.
 */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: unknown }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'finish'; finishReason?: UIFinishReason; messageMetadata?: unknown }
  | { type: 'message-metadata'; messageMetadata: unknown }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean }
  | { type: 'file'; url: string; mediaType: string }
  | { type: 'source-url'; sourceId: string; url: string; title?: string }
  | { type: 'abort'; reason?: string }
  | { type: 'error'; errorText: string }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; providerExecuted?: boolean }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | {
      type: 'tool-input-available';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerExecuted?: boolean;
    }
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown; providerExecuted?: boolean }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | {
      type: 'source-document';
      sourceId: string;
      mediaType: string;
      title: string;
      filename?: string;
      /** `{ svc: { fileId } }`: the uploaded file the source is. */
      providerMetadata?: Record<string, Record<string, string>>;
    };

/** The AI SDK's finish reasons. */
export type UIFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** The response headers of a UI message stream, as the AI SDK sends them. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};
