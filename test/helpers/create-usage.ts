import type { Usage } from '../../src/api/types/chat.js';

/**
 * Wire usage; `total_tokens` is prompt plus completion unless set.
 * @example createUsage({ prompt_tokens: 8, completion_tokens: 3 })
 */
export function createUsage(overrides: Partial<Usage> = {}): Usage {
  const { prompt_tokens = 0, completion_tokens = 0, ...fields } = overrides;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, ...fields };
}
