import type { AssistantMessage, SystemMessage } from './chat.js';

/** A part of a user message for token counting: text, or an image by `url` only (no `detail`, no video). */
export type TokenCountContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: never } };

/** A user message for token counting. */
export interface TokenCountUserMessage {
  role: 'user';
  content: string | TokenCountContentPart[];
}

/** Body of `POST /v1/token/count`: the chat format without tool messages, video parts or image `detail`. */
export interface TokenCountParams {
  model: string;
  messages: Array<SystemMessage | TokenCountUserMessage | AssistantMessage>;
}

/** Response of `POST /v1/token/count`. */
export interface TokenCount {
  data: { total_tokens: number };
}
