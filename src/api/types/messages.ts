/** A content block of the Messages format. */
export type MessagesContentBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
    }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | MessagesContentBlock[];
      is_error?: boolean;
    };

/** A message of the Messages format. */
export interface MessagesMessage {
  role: 'user' | 'assistant';
  content: string | MessagesContentBlock[];
}

/** A tool of the Messages format. */
export interface MessagesTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** Body of `POST /v1/messages/count_tokens`; other Messages fields pass through. */
export interface MessagesCountTokensParams {
  model: string;
  messages: MessagesMessage[];
  system?: string | Array<{ type: 'text'; text: string }>;
  tools?: MessagesTool[];
  max_tokens?: number;
  [key: string]: unknown;
}

/** Response of `POST /v1/messages/count_tokens`: an estimate. */
export interface MessagesTokenCount {
  input_tokens: number;
}
