import type { AssistantMessage, SystemMessage, UserMessage } from './chat.js';

/** Body of `POST /v1/token/count`: the chat format without tool messages. */
export interface TokenCountParams {
  model: string;
  messages: Array<SystemMessage | UserMessage | AssistantMessage>;
}

/** Response of `POST /v1/token/count`. */
export interface TokenCount {
  data: { total_tokens: number };
}
