import type { ChatCompletionCreateParams, ChatMessage, ToolDefinition } from '../api/types/chat.js';
import type { ModelSettings } from './model-settings.js';
import type { OutputRequest } from './structured-output.js';

/** Everything one turn's request is made of. */
export interface BuildRequestOptions {
  model: string;
  instructions: string | undefined;
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  modelSettings: ModelSettings;
  output: OutputRequest | undefined;
  stream: boolean;
}

/**
 * Builds the chat-completion body of one turn. The agent's instructions (and the JSON instruction of
 * structured output on models without json_schema) go first as a system message; they are not part of
 * the run's `messages`, so continuing a conversation never repeats them.
 */
export function buildRequest(options: BuildRequestOptions): ChatCompletionCreateParams {
  const system = [options.instructions, options.output?.instruction].filter(Boolean).join('\n\n');
  const messages: ChatMessage[] = system
    ? [{ role: 'system', content: system }, ...options.messages]
    : [...options.messages];
  const params: ChatCompletionCreateParams = { ...options.modelSettings, model: options.model, messages };
  // The same (frozen) array every turn: the validator recognises it and skips its JSON Schemas.
  if (options.tools.length > 0) params.tools = options.tools as ToolDefinition[];
  if (options.output) params.response_format = options.output.responseFormat;
  if (options.stream) params.stream = true;
  else delete params.stream;
  return params;
}
