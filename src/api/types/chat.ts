/**
 * Wire types of the chat-completion operation, with the service's own snake_case field names.
 * Request shapes are checked at run time by the zod schemas in `src/api/schemas/`.
 */

/** A typed part of a user message. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' } }
  | { type: 'video_url'; video_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string } };

/** A system message. */
export interface SystemMessage {
  role: 'system';
  content: string;
}

/** A user message: plain text or a list of typed parts. */
export interface UserMessage {
  role: 'user';
  content: string | ContentPart[];
}

/** A function call requested by the model, as sent back in an assistant message. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  index?: number;
}

/** A call of a hosted tool (web search) reported by the service; it needs no tool message. */
export interface HostedToolCall {
  id: string;
  type: 'web_search' | 'retrieval' | (string & {});
  function: { name?: string; arguments?: string; results?: WebSearchResult[] };
  index?: number;
}

/** One web-search hit the service reports with a hosted `web_search` call. */
export interface WebSearchResult {
  index?: number;
  url: string;
  title: string;
  summary?: string;
}

/** An assistant message as sent back to the service (reasoning is sent back as the service's cookbook does). */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  reasoning?: string;
  reasoning_content?: string;
}

/** The result of a local function, answering the call with the same `tool_call_id`. */
export interface ToolMessage {
  role: 'tool';
  content: string;
  tool_call_id: string;
}

/** Any message of a chat-completion request. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** JSON Schema of a function's parameters; the spec requires a root `type: "object"`. */
export interface FunctionParameters {
  type: 'object';
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  [key: string]: unknown;
}

/** A function tool definition. */
export interface FunctionToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: FunctionParameters };
}

/** The hosted web-search tool, run by the service. */
export interface WebSearchToolDefinition {
  type: 'web_search';
  function: { description?: string };
}

/** The hosted knowledge-base retrieval tool, run by the service. */
export interface RetrievalToolDefinition {
  type: 'retrieval';
  function: {
    name: string;
    description?: string;
    options: { vector_store_id: string; prompt_template?: string };
  };
}

/** Any entry of the `tools` array. */
export type ToolDefinition = FunctionToolDefinition | WebSearchToolDefinition | RetrievalToolDefinition;

/** `response_format` of a chat-completion request. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; strict?: boolean; schema: Record<string, unknown>; description?: string };
    };

/** Audio output settings for end-to-end audio models. */
export interface AudioOutputParams {
  voice: string;
  format: 'pcm' | 'wav';
}

/** Body of `POST /v1/chat/completions`. */
export interface ChatCompletionCreateParams {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  audio?: AudioOutputParams;
  modalities?: Array<'text' | 'audio'>;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  stream?: boolean;
  stop?: string | string[];
  frequency_penalty?: number;
  response_format?: ResponseFormat;
  reasoning_format?: 'general' | 'alt-style';
  reasoning_effort?: 'low' | 'medium' | 'high';
}

/** Token usage of a completion; in a stream it is cumulative on each chunk. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens?: number;
  completion_tokens_details?: Record<string, unknown> | null;
  prompt_tokens_details?: Record<string, unknown> | null;
}

/** The assistant message of a completion choice. */
export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  reasoning?: string;
  reasoning_content?: string;
  tool_calls?: Array<ToolCall | HostedToolCall>;
  audio?: { data: string; transcript: string };
}

/** Why generation stopped; `null` is sent by audio models. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | (string & {});

/** One alternative of a completion. */
export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: FinishReason | null;
  logprobs?: null;
}

/** A non-streamed chat completion. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: Usage;
}

/** A tool-call fragment of a streamed delta; legacy models leave `index` out and send `id: ""`, `type: ""`. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string; results?: WebSearchResult[] };
}

/** The incremental piece of one streamed choice. */
export interface ChatCompletionDelta {
  role?: 'assistant' | '';
  content?: string | null;
  reasoning?: string;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
  audio?: { data?: string; transcript?: string };
}

/** One streamed choice; `finish_reason` is `""` (or missing) while generating. */
export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionDelta;
  finish_reason?: FinishReason | '' | null;
}

/** One server-sent chunk of a streamed chat completion. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: Usage;
}
