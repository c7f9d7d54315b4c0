import { AgentOptionsError } from '../errors.js';

/**
 * Prices of one model, in your currency (or in credits on the plan channel, which bills credits rather
 * than money). Token prices are per million tokens, as price lists give them.
 */
export interface ModelPrice {
  /** Per million prompt tokens not served from the cache. */
  input: number;
  /** Per million prompt tokens served from the prompt cache (`usage.cachedTokens`). @default input */
  cachedInput?: number;
  /** Per million generated tokens. */
  output: number;
  /** Per image sent in a request (only if your plan bills images on top of their prompt tokens). @default 0 */
  image?: number;
  /** Per second of audio sent (wav) or generated. @default 0 */
  audioSecond?: number;
}

/** Prices per model id: `{ 'svc-3.5-flash': { input: 0.3, cachedInput: 0.03, output: 1.2 } }`. */
export type PriceTable = Record<string, ModelPrice>;

const FIELDS = ['input', 'cachedInput', 'output', 'image', 'audioSecond'] as const;

/** Checks the agent's `prices` (naming the field and rule): a price for the agent's model, numbers >= 0. */
export function checkPriceTable(prices: unknown, model: string): PriceTable | undefined {
  if (prices === undefined) return undefined;
  if (typeof prices !== 'object' || prices === null) {
    throw new AgentOptionsError({ field: 'prices', rule: 'must be an object of prices per model id' });
  }
  const table = prices as Record<string, unknown>;
  if (!(model in table)) {
    throw new AgentOptionsError({
      field: `prices.${model}`,
      rule: 'required: a price for the agent\u2019s model',
    });
  }
  for (const [id, price] of Object.entries(table)) {
    const fields = (price ?? {}) as Record<string, unknown>;
    for (const field of FIELDS) {
      const value = fields[field];
      const required = field === 'input' || field === 'output';
      if (value === undefined && !required) continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new AgentOptionsError({ field: `prices.${id}.${field}`, rule: 'must be a number >= 0' });
      }
    }
  }
  return table as PriceTable;
}
