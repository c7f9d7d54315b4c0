import { createHash } from 'node:crypto';
import type { FunctionToolDefinition } from '../../api/types/chat.js';
import type { ModelAnswer } from './model-answer.js';

const QUESTION =
  /\?\s*$|^\s*(?:who|what|when|where|which|why|how|is|are|do|does|can|could|should|tell me)\b/i;

/**
 * A question no other tool answered goes to the knowledge bases the chat searches, as a model told to
 * answer from them would do: a `search_knowledge_base` tool that names its knowledge bases (an `enum`)
 * is called with the question as `query`. `undefined` when there is no such tool or no question.
 */
export function planKnowledgeBaseSearch(
  functions: readonly FunctionToolDefinition[],
  userText: string,
  callIdSeed: string,
): ModelAnswer | undefined {
  const search = functions.find((tool) => {
    if (tool.function.name !== 'search_knowledge_base') return false;
    const properties = (tool.function.parameters?.properties ?? {}) as Record<string, { enum?: unknown }>;
    return 'query' in properties && Array.isArray(properties.knowledge_base?.enum);
  });
  const query = userText.trim();
  if (!search || !QUESTION.test(query)) return undefined;
  const id = `call_kb_${createHash('sha256').update(callIdSeed).digest('hex').slice(0, 16)}`;
  return {
    content: '',
    toolCalls: [{ id, name: search.function.name, arguments: JSON.stringify({ query }) }],
  };
}
