import type { HostedToolCall, Usage } from '../../api/types/chat.js';

/** What a model decided to say, before it is rendered as a completion or a stream. */
export interface ModelAnswer {
  content: string;
  reasoning?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** Hosted tool calls reported to the caller (web search); they need no tool message. */
  hostedCalls?: HostedToolCall[];
  /** Overrides the finish reason the renderer would pick. */
  finishReason?: string | null;
  /** Overrides counted usage fields. */
  usage?: Partial<Usage>;
}
