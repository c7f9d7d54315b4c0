import type { ChatCompletionCreateParams } from '../api/types/chat.js';

/** Request fields an agent passes through on every turn (temperature, max_tokens, reasoning_effort, audio, ...). */
export type ModelSettings = Omit<
  ChatCompletionCreateParams,
  'model' | 'messages' | 'tools' | 'stream' | 'n' | 'response_format'
>;
