import type { DocumentSource, ToolCallOutcome, ToolSet } from '../../tools/tool.js';
import type { AgentStep } from '../run-result.js';

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

/**
 * Every source of a run's steps, each id once with its best score, best first (`result.sources`); when the
 * answer names some of them (by file name), only those: the answer drew on them.
 */
export function collectSources(steps: readonly AgentStep[]): DocumentSource[] {
  const byId = new Map<string, DocumentSource>();
  for (const step of steps) {
    for (const result of step.toolResults) {
      for (const source of result.sources ?? []) {
        const seen = byId.get(source.id);
        if (!seen || (source.score ?? 0) > (seen.score ?? 0)) byId.set(source.id, source);
      }
    }
  }
  // Stable: sources without a score keep the order they came in.
  const ranked = [...byId.values()].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  const answer = steps.at(-1)?.text ?? '';
  const named = ranked.filter((source) => answer.includes(source.title));
  return named.length > 0 ? named : ranked;
}
