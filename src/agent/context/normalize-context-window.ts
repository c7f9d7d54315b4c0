import { AgentOptionsError } from '../errors.js';
import {
  type ContextWindowOptions,
  defaultContextWindowOptions as defaults,
  type NormalizedContextWindow,
} from './context-window-options.js';

/** Checks `contextWindow` (naming the field and rule) and fills in defaults; `undefined` when not set. */
export function normalizeContextWindow(
  options: ContextWindowOptions | undefined,
): NormalizedContextWindow | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new AgentOptionsError({
      field: 'contextWindow',
      rule: 'must be an object such as { strategy: "truncate" }',
    });
  }
  const {
    strategy = defaults.strategy,
    maxInputTokens,
    windows,
    reserveOutputTokens,
    counting = defaults.counting,
    trimTarget = defaults.trimTarget,
    maxToolResultShare = defaults.maxToolResultShare,
    summary = {},
  } = options;
  if (strategy !== 'truncate' && strategy !== 'summarize' && typeof strategy !== 'function') {
    throw new AgentOptionsError({
      field: 'contextWindow.strategy',
      rule: `must be "truncate", "summarize" or a function, got ${JSON.stringify(strategy)}`,
    });
  }
  if (counting !== 'service' && counting !== 'local') {
    throw new AgentOptionsError({ field: 'contextWindow.counting', rule: 'must be "service" or "local"' });
  }
  checkTokens('contextWindow.maxInputTokens', maxInputTokens);
  checkTokens('contextWindow.reserveOutputTokens', reserveOutputTokens, 0);
  checkTokens('contextWindow.summary.maxTokens', summary.maxTokens);
  for (const [model, size] of Object.entries(windows ?? {}))
    checkTokens(`contextWindow.windows.${model}`, size);
  checkShare('contextWindow.trimTarget', trimTarget);
  checkShare('contextWindow.maxToolResultShare', maxToolResultShare);
  return {
    strategy,
    maxInputTokens,
    windows,
    reserveOutputTokens,
    counting,
    trimTarget,
    maxToolResultShare,
    summary: {
      model: summary.model,
      instructions: summary.instructions ?? defaults.summaryInstructions,
      maxTokens: summary.maxTokens ?? defaults.summaryMaxTokens,
    },
  };
}

function checkTokens(field: string, value: unknown, min = 1): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new AgentOptionsError({ field, rule: `must be an integer >= ${min}, got ${String(value)}` });
  }
}

function checkShare(field: string, value: unknown): void {
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new AgentOptionsError({ field, rule: `must be a number in (0, 1], got ${String(value)}` });
  }
}
