import { TOOL_NAME_PATTERN } from './define-tool.js';
import { ToolDefinitionError } from './errors.js';
import type { HostedTool } from './tool.js';

/** Retrieval prompt template used when none is given; the service fills `{{knowledge}}` and `{{query}}`. */
export const DEFAULT_RETRIEVAL_PROMPT_TEMPLATE =
  'Answer the question using the knowledge below.\n\nKnowledge:\n{{knowledge}}\n\nQuestion: {{query}}\n\n' +
  'If the knowledge does not contain the answer, say so instead of guessing.';

/** Description of the hosted web search when none is given. */
export const DEFAULT_WEB_SEARCH_DESCRIPTION =
  'Search the web for current information, news and facts that may be newer than your training data.';

/** Options of `hostedTools.webSearch`. */
export interface WebSearchToolOptions {
  /** Tells the model when to search the web. @default DEFAULT_WEB_SEARCH_DESCRIPTION */
  description?: string;
}

/** Options of `hostedTools.retrieval`. */
export interface RetrievalToolOptions {
  /** Tool name; `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. */
  name: string;
  /** What the knowledge base holds and when to consult it. */
  description: string;
  /** Id of the knowledge base (vector store) to search. */
  vectorStoreId: string;
  /** Prompt built by the service; must contain `{{knowledge}}` and `{{query}}`. @default DEFAULT_RETRIEVAL_PROMPT_TEMPLATE */
  promptTemplate?: string;
}

/** Tools run by the service itself: sent with the request, never executed locally. */
export const hostedTools = {
  /** The service's web search: `{ type: "web_search", function: { description } }`. */
  webSearch(options: WebSearchToolOptions = {}): HostedTool {
    const { description = DEFAULT_WEB_SEARCH_DESCRIPTION } = options;
    if (typeof description !== 'string' || description.trim() === '') {
      throw new ToolDefinitionError({
        toolName: 'web_search',
        rule: 'description must be a non-empty string',
      });
    }
    return Object.freeze({
      kind: 'hosted' as const,
      definition: { type: 'web_search' as const, function: { description } },
    });
  },

  /** Retrieval over a knowledge base, answered by the service with the given prompt template. */
  retrieval(options: RetrievalToolOptions): HostedTool {
    const { name, description, vectorStoreId, promptTemplate = DEFAULT_RETRIEVAL_PROMPT_TEMPLATE } = options;
    const fail = (rule: string): never => {
      throw new ToolDefinitionError({ toolName: String(name), rule });
    };
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      fail('name must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$');
    }
    if (typeof description !== 'string' || description.trim() === '') {
      fail('description is required: tell the model what the knowledge base holds');
    }
    if (typeof vectorStoreId !== 'string' || vectorStoreId.trim() === '') fail('vectorStoreId is required');
    if (typeof promptTemplate !== 'string') fail('promptTemplate must be a string');
    for (const placeholder of ['{{knowledge}}', '{{query}}']) {
      if (!promptTemplate.includes(placeholder)) fail(`promptTemplate must contain ${placeholder}`);
    }
    return Object.freeze({
      kind: 'hosted' as const,
      definition: {
        type: 'retrieval' as const,
        function: {
          name,
          description,
          options: { vector_store_id: vectorStoreId, prompt_template: promptTemplate },
        },
      },
    });
  },
};
