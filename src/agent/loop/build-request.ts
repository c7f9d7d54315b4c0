import type {
  ChatCompletionCreateParams,
  ChatMessage,
  SystemMessage,
  ToolDefinition,
} from '../../api/types/chat.js';
import type { ModelSettings } from '../model-settings.js';
import type { OutputRequest } from './structured-output.js';

/** Everything one turn's request is made of. */
export interface BuildRequestOptions {
  model: string;
  /** The run's system message (see {@link systemMessage}), sent first. */
  system: SystemMessage | undefined;
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  modelSettings: ModelSettings;
  output: OutputRequest | undefined;
  stream: boolean;
}

/**
 * The system message of a run: the agent's instructions and the JSON instruction of structured output on
 * models without json_schema. Built once per run: every turn re-sends the same object, as it does the
 * conversation's messages. It is not part of the run's `messages`, so continuing a conversation never
 * repeats it.
 */
export function systemMessage(
  instructions: string | undefined,
  output: OutputRequest | undefined,
): SystemMessage | undefined {
  const content = [instructions, output?.instruction].filter(Boolean).join('\n\n');
  return content ? { role: 'system', content } : undefined;
}

/** Builds the chat-completion body of one turn. */
export function buildRequest(options: BuildRequestOptions): ChatCompletionCreateParams {
  const { system } = options;
  const messages: ChatMessage[] = system ? [system, ...options.messages] : [...options.messages];
  // `modelSettings` never holds the fields set here (the agent's options are checked for that).
  const params: ChatCompletionCreateParams = { ...options.modelSettings, model: options.model, messages };
  if (options.tools.length > 0) params.tools = options.tools as ToolDefinition[];
  if (options.output) params.response_format = options.output.responseFormat;
  if (options.stream) params.stream = true;
  return params;
}
