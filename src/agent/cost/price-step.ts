import type { ChatCompletion, ChatCompletionCreateParams } from '../../api/types/chat.js';
import type { AgentStep } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { audioSeconds } from './audio-seconds.js';
import type { PriceTable } from './price-table.js';

const PER_MILLION = 1_000_000;

/**
 * Sets `usage.cost` of a recorded step from the price table, and adds it to the run's usage: prompt tokens
 * (cached ones at the cached price), generated tokens, images and audio seconds of the request and answer.
 */
export function priceStep(
  state: RunState,
  step: AgentStep,
  params: ChatCompletionCreateParams,
  completion: ChatCompletion,
  prices: PriceTable,
): void {
  const price = prices[params.model];
  if (!price) return;
  const { promptTokens, cachedTokens, completionTokens } = step.usage;
  let images = 0;
  let seconds = 0;
  for (const message of params.messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'image_url') images += 1;
      else if (part.type === 'input_audio') seconds += audioSeconds(part.input_audio.data);
    }
  }
  const audio = completion.choices[0]?.message.audio?.data;
  if (audio) seconds += audioSeconds(audio);
  const cost =
    ((promptTokens - cachedTokens) * price.input +
      cachedTokens * (price.cachedInput ?? price.input) +
      completionTokens * price.output) /
      PER_MILLION +
    images * (price.image ?? 0) +
    seconds * (price.audioSecond ?? 0);
  step.usage.cost = cost;
  state.usage.cost = (state.usage.cost ?? 0) + cost;
}
