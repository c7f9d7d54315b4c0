import type { SvcClient } from '../../api/svc-client.js';
import { searchKnowledgeBaseTool } from '../../tools/built-in/search-knowledge-base.js';
import { createToolSet } from '../../tools/create-tool-set.js';
import type { ToolSet } from '../../tools/tool.js';
import { AgentOptionsError } from '../errors.js';

/** Name of the search tool `knowledgeBases` adds. */
export const SEARCH_KNOWLEDGE_BASE = 'search_knowledge_base';

/**
 * Checks the `knowledgeBases` option (of the agent or of a run): a non-empty list of ids or names, for an
 * agent with a tools list (a tools function chooses every step's tools itself, the search tool included).
 */
export function checkKnowledgeBases(value: unknown, toolsFunction: boolean): readonly string[] | undefined {
  const field = 'knowledgeBases';
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === 'string' && item.trim() !== '')
  ) {
    throw new AgentOptionsError({
      field,
      rule: 'must be a non-empty array of knowledge-base names or ids, e.g. ["office_docs"]',
    });
  }
  if (toolsFunction) {
    throw new AgentOptionsError({
      field,
      rule: 'needs a tools list; a tools function can return searchKnowledgeBaseTool(client, { knowledgeBases })',
    });
  }
  return value as readonly string[];
}

/**
 * `toolSet` with a `search_knowledge_base` over `knowledgeBases` (answered by `model` through `client`),
 * replacing any search tool the set already had, so a run searches exactly the knowledge bases it chose.
 */
export function withKnowledgeBaseSearch(
  toolSet: ToolSet,
  options: { client: SvcClient; model: string; knowledgeBases: readonly string[] },
): ToolSet {
  const search = searchKnowledgeBaseTool(options.client, {
    knowledgeBases: options.knowledgeBases,
    model: options.model,
  });
  const functions = [...toolSet.functions.values()].filter((tool) => tool.name !== search.name);
  return createToolSet([...functions, ...toolSet.hosted, search]);
}
