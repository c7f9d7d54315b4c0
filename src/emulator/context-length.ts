import { contextWindowOf } from '../api/context-windows.js';
import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import { EmulatorHttpError } from './errors.js';

/**
 * Rejects a request whose prompt plus `max_tokens` is over the model's context length, as the service
 * does ("input plus generated tokens are bounded by the model's context length"): 400 whose message
 * says the input is too long and gives the figures.
 */
export function checkContextLength(
  body: Pick<ChatCompletionCreateParams, 'model' | 'max_tokens'>,
  promptTokens: number,
  windows?: Readonly<Record<string, number>>,
): void {
  const window = contextWindowOf(body.model, windows);
  const reserved = typeof body.max_tokens === 'number' ? body.max_tokens : 0;
  if (promptTokens + reserved <= window) return;
  const asked = reserved > 0 ? ` plus max_tokens ${reserved}` : '';
  throw new EmulatorHttpError(
    400,
    'request_params_invalid',
    `Input too long: the messages take ${promptTokens} tokens${asked}, over the context length of ${body.model} (${window} tokens). Shorten the messages or lower max_tokens.`,
  );
}
