import type { SvcClient } from '../../api/svc-client.js';
import type { VectorStore } from '../../api/types/vector-stores.js';
import { loadZod } from '../../core/load-module.js';
import { defineTool } from '../define-tool.js';
import { KnowledgeBaseNameError } from '../errors.js';
import type { DocumentSource, Tool } from '../tool.js';
import { listAllKnowledgeBases, pickKnowledgeBase } from './find-knowledge-bases.js';
import { rankCitedFiles } from './rank-cited-files.js';

/** Model that answers the hosted retrieval behind `search_knowledge_base` unless told otherwise. */
export const DEFAULT_SEARCH_MODEL = 'svc-3.5-flash-2603';

/** Without a choice of knowledge bases, the search covers the whole account only when it has this many or fewer. */
export const MAX_DEFAULT_KNOWLEDGE_BASES = 5;

/**
 * Prompt of the hosted retrieval: the passages themselves with the files they come from, so the agent's
 * model can answer and cite; the service fills `{{knowledge}}` and `{{query}}`.
 */
export const PASSAGES_PROMPT_TEMPLATE =
  'Quote the passages of the knowledge below that answer the question, word for word, and name the file ' +
  'each passage comes from.\n\nKnowledge:\n{{knowledge}}\n\nQuestion: {{query}}\n\n' +
  'If the knowledge holds nothing that answers it, say so instead of guessing.';

/** Options of `searchKnowledgeBaseTool`. */
export interface SearchKnowledgeBaseOptions {
  /**
   * Ids or names of the knowledge bases to search; the model may narrow a search to one of them. Without
   * it the model names one, or every knowledge base of the account is searched when there are at most 5.
   */
  knowledgeBases?: readonly string[] | undefined;
  /** Model answering the hosted retrieval. @default DEFAULT_SEARCH_MODEL */
  model?: string | undefined;
  /** Whether a human must approve each search. @default false */
  needsApproval?: boolean | undefined;
}

/** A file of a knowledge base that a search result quotes. */
export interface SearchResultFile {
  file_id: string;
  file_name: string;
  /** How much of the query the passages quoted from this file cover, 0-1 (files are listed best first). */
  score: number;
}

/** What one knowledge base gave for a query. */
export interface KnowledgeBaseSearchResult {
  knowledge_base: string;
  knowledge_base_id: string;
  /** The retrieved passages, as the service's retrieval quoted them. */
  passages: string;
  /** The files of the knowledge base the passages quote for the query, best first (not those named in passing). */
  files: SearchResultFile[];
}

/** Output of `search_knowledge_base`: one result per knowledge base searched. */
export interface SearchKnowledgeBaseOutput {
  results: KnowledgeBaseSearchResult[];
}

/**
 * `search_knowledge_base`: finds the passages of one or more knowledge bases (by name or id) that answer a
 * query, through the service's hosted retrieval (the service has no search endpoint), and returns them
 * with the ids and names of the files they come from, so the model can cite them. Its results are
 * reported by an agent as `source` events and in `result.sources`.
 */
export function searchKnowledgeBaseTool(
  client: SvcClient,
  options: SearchKnowledgeBaseOptions = {},
): Tool<{ query: string; knowledge_base?: string | undefined }, SearchKnowledgeBaseOutput> {
  const { knowledgeBases, model = DEFAULT_SEARCH_MODEL, needsApproval = false } = options;
  const { z } = loadZod();
  const scope = knowledgeBases?.length
    ? `It searches these knowledge bases: ${knowledgeBases.join(', ')}.`
    : 'Name the knowledge base to search (list_knowledge_bases shows them).';
  return defineTool({
    name: 'search_knowledge_base',
    description:
      "Search the user's knowledge bases (uploaded documents) for passages that answer a question. " +
      `${scope} Answer from the passages and name the files they come from.`,
    parameters: z.object({
      query: z.string().min(1).describe('The question or the words to look for'),
      // With a choice made, the model can only narrow it: any other name is not in the schema.
      knowledge_base: (knowledgeBases?.length
        ? z.enum(knowledgeBases as [string, ...string[]])
        : z.string().min(1)
      )
        .optional()
        .describe('Name or id of one knowledge base to search; leave out to search all of them'),
    }),
    idempotent: true,
    needsApproval,
    execute: async ({ query, knowledge_base }, { signal }) => {
      const stores = await targetStores(client, knowledgeBases, knowledge_base, signal);
      const results = await Promise.all(
        stores.map((store) => searchStore(client, model, store, query, signal)),
      );
      return { results };
    },
    sources: sourcesOf,
  });
}

/** The `source` entries of a search output: each cited file once per knowledge base, best first, with its score. */
export function sourcesOf(output: SearchKnowledgeBaseOutput): DocumentSource[] {
  return output.results
    .flatMap((result) =>
      result.files.map((file) => ({
        sourceType: 'document' as const,
        id: `${result.knowledge_base_id}/${file.file_id}`,
        title: file.file_name,
        fileId: file.file_id,
        score: file.score,
      })),
    )
    .sort((a, b) => b.score - a.score);
}

/** The stores one call searches: the model's pick (within the allowed ones), else all allowed ones. */
async function targetStores(
  client: SvcClient,
  allowed: readonly string[] | undefined,
  asked: string | undefined,
  signal: AbortSignal,
): Promise<VectorStore[]> {
  const account = await listAllKnowledgeBases(client, signal);
  const permitted = allowed?.length ? allowed.map((ref) => pickKnowledgeBase(account, ref)) : undefined;
  if (asked !== undefined) {
    const store = pickKnowledgeBase(permitted ?? account, asked);
    return [store];
  }
  if (permitted) return [...new Map(permitted.map((store) => [store.id, store])).values()];
  if (account.length === 0 || account.length > MAX_DEFAULT_KNOWLEDGE_BASES) {
    throw new KnowledgeBaseNameError({ problem: 'unspecified', knowledgeBase: '', stores: account });
  }
  return account;
}

async function searchStore(
  client: SvcClient,
  model: string,
  store: VectorStore,
  query: string,
  signal: AbortSignal,
): Promise<KnowledgeBaseSearchResult> {
  const [completion, files] = await Promise.all([
    client.chat.completions.create(
      {
        model,
        messages: [{ role: 'user', content: query }],
        tools: [
          {
            type: 'retrieval',
            function: {
              name: 'knowledge_base',
              description: `Passages of the knowledge base ${store.name}.`,
              options: { vector_store_id: store.id, prompt_template: PASSAGES_PROMPT_TEMPLATE },
            },
          },
        ],
      },
      { signal },
    ),
    storeFiles(client, store.id, signal),
  ]);
  const passages = completion.choices[0]?.message.content ?? '';
  // The service's answer is text: a file is a source when the passages quote it on the query.
  const cited = rankCitedFiles(passages, files, query);
  return { knowledge_base: store.name, knowledge_base_id: store.id, passages, files: cited };
}

/** The files of a store with their names (from the listing, or the file itself when the listing has none). */
async function storeFiles(
  client: SvcClient,
  storeId: string,
  signal: AbortSignal,
): Promise<Array<Omit<SearchResultFile, 'score'>>> {
  const files: Array<Omit<SearchResultFile, 'score'>> = [];
  for await (const file of client.vectorStores.files.list(storeId, { limit: 100 }, { signal })) {
    const listed = file.metadata?.file_name;
    const name = listed || (await client.files.retrieve(file.id, { signal })).filename;
    if (name) files.push({ file_id: file.id, file_name: name });
  }
  return files;
}
