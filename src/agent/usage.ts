import type { Usage } from '../api/types/chat.js';

/** Token usage of a run, in camelCase, summed over its turns. */
export interface AgentUsage {
  /** Prompt tokens of every request of the run. */
  promptTokens: number;
  /** Generated tokens of every turn. */
  completionTokens: number;
  /** Sum of the turns' `total_tokens`. */
  totalTokens: number;
  /** Prompt tokens served from the service's cache. */
  cachedTokens: number;
  /** What it cost, from the agent's `prices` (absent without them). */
  cost?: number | undefined;
}

/** Usage of nothing: the starting point of a sum. */
export function emptyUsage(): AgentUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 };
}

/**
 * Converts one turn's wire usage into camelCase. A stream's usage is cumulative on every chunk,
 * so callers pass the turn's final usage only; a missing usage counts as zero.
 */
export function toAgentUsage(usage: Usage | undefined | null): AgentUsage {
  if (!usage) return emptyUsage();
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
    cachedTokens: usage.cached_tokens ?? 0,
  };
}

/** Adds two usages field by field. */
export function addUsage(a: AgentUsage, b: AgentUsage): AgentUsage {
  const sum: AgentUsage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
  };
  if (a.cost !== undefined || b.cost !== undefined) sum.cost = (a.cost ?? 0) + (b.cost ?? 0);
  return sum;
}
