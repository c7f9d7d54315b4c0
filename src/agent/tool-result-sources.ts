import type { DocumentSource, ToolCallOutcome, ToolSet } from '../tools/tool.js';
import type { AgentStep } from './run-result.js';

/**
 * The documents a successful call drew on, as its tool's `sources` reads them from the output. A tool
 * whose `sources` throws reports none: citing is a courtesy, never a reason to fail the run.
 */
export function toolResultSources(toolSet: ToolSet, outcome: ToolCallOutcome): DocumentSource[] | undefined {
  if (outcome.status !== 'ok') return undefined;
  const tool = toolSet.functions.get(outcome.toolName);
  if (!tool?.sources) return undefined;
  try {
    const sources = tool.sources(outcome.output);
    return sources.length > 0 ? sources : undefined;
  } catch {
    return undefined;
  }
}

/** Every source of a run's steps, in order, each id once (`result.sources`). */
export function collectSources(steps: readonly AgentStep[]): DocumentSource[] {
  const byId = new Map<string, DocumentSource>();
  for (const step of steps) {
    for (const result of step.toolResults) {
      for (const source of result.sources ?? []) if (!byId.has(source.id)) byId.set(source.id, source);
    }
  }
  return [...byId.values()];
}
