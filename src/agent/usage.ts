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
  return combineUsage(a, b, 1);
}

/** Subtracts `b` from `a` field by field (the part of a usage that came after `b`). */
export function subtractUsage(a: AgentUsage, b: AgentUsage): AgentUsage {
  return combineUsage(a, b, -1);
}

// One list of fields for both: a field added to `AgentUsage` cannot be summed but not subtracted.
function combineUsage(a: AgentUsage, b: AgentUsage, sign: 1 | -1): AgentUsage {
  const sum: AgentUsage = {
    promptTokens: a.promptTokens + sign * b.promptTokens,
    completionTokens: a.completionTokens + sign * b.completionTokens,
    totalTokens: a.totalTokens + sign * b.totalTokens,
    cachedTokens: a.cachedTokens + sign * b.cachedTokens,
  };
  if (a.cost !== undefined || b.cost !== undefined) sum.cost = (a.cost ?? 0) + sign * (b.cost ?? 0);
  return sum;
}
