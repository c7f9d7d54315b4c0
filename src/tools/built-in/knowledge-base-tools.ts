import { isSafePathId, pathIdRule } from '../../api/schemas/validate-resource-id.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { VectorStore } from '../../api/types/vector-stores.js';
import { ModelBehaviorError } from '../../core/errors.js';
import { loadZod } from '../../core/load-module.js';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../tool.js';
import { compact } from '../utils.js';
import { assertKnowledgeBaseNameFree } from './find-knowledge-bases.js';
import { searchKnowledgeBaseTool } from './search-knowledge-base.js';
import { selectTools, type ToolSelection } from './select-tools.js';

/** Names of the knowledge-base tools. */
export type KnowledgeBaseToolName =
  | 'list_knowledge_bases'
  | 'create_knowledge_base'
  | 'get_knowledge_base'
  | 'add_files_to_knowledge_base'
  | 'list_knowledge_base_files'
  | 'remove_file_from_knowledge_base'
  | 'search_knowledge_base';

/** Options of `knowledgeBaseTools`. */
export interface KnowledgeBaseToolsOptions extends ToolSelection<KnowledgeBaseToolName> {
  /** Override the approval default of a tool (`remove_file_from_knowledge_base` needs approval by default). */
  needsApproval?: Partial<Record<KnowledgeBaseToolName, boolean>>;
  /** How long `add_files_to_knowledge_base` waits for each file to be ready, in ms. @default 120_000 */
  fileReadyTimeoutMs?: number;
  /** Let `create_knowledge_base` create a second store with a name the account already has. @default false */
  allowDuplicateNames?: boolean;
  /** Ids or names of the knowledge bases `search_knowledge_base` searches; see `SearchKnowledgeBaseOptions`. */
  knowledgeBases?: readonly string[] | undefined;
  /** Model answering the hosted retrieval of `search_knowledge_base`. @default DEFAULT_SEARCH_MODEL */
  searchModel?: string | undefined;
}

/** Sums up a store for the model without noise. */
function describeStore(store: VectorStore) {
  return { id: store.id, name: store.name, type: store.type, file_counts: store.file_counts };
}

/**
 * Tools that let a model manage and search knowledge bases (vector stores) through `client`: list, create
 * (names stay unique), get, add files (waiting until each file is ready), list files, remove a file (needs
 * approval by default), and search with citations (`search_knowledge_base`).
 */
export function knowledgeBaseTools(client: SvcClient, options: KnowledgeBaseToolsOptions = {}): Tool[] {
  const { fileReadyTimeoutMs = 120_000, allowDuplicateNames = false } = options;
  const { z } = loadZod();
  const storeId = z
    .string()
    .min(1)
    .refine(isSafePathId, pathIdRule)
    .describe('Id of the knowledge base, as returned by list_knowledge_bases');
  const limit = z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('How many entries to return, 1 to 100 (default 20)');
  const after = z
    .string()
    .optional()
    .describe('Cursor: return entries after this id (the last_id of the previous page)');
  const approval = (name: KnowledgeBaseToolName, fallback: boolean) =>
    options.needsApproval?.[name] ?? fallback;
  const factories: Record<KnowledgeBaseToolName, () => Tool> = {
    list_knowledge_bases: () =>
      defineTool({
        name: 'list_knowledge_bases',
        description:
          'List the knowledge bases (searchable document collections) of this account with their ids, names, ' +
          'types (text or image) and file counts. Use it to find the id of a knowledge base by name.',
        parameters: z.object({ limit, after }),
        needsApproval: approval('list_knowledge_bases', false),
        execute: async (args, { signal }) => {
          const page = await client.vectorStores.list(compact(args), { signal });
          return {
            knowledge_bases: page.data.map(describeStore),
            has_more: page.has_more,
            last_id: page.last_id,
          };
        },
      }),
    create_knowledge_base: () =>
      defineTool({
        name: 'create_knowledge_base',
        description:
          'Create a new, empty knowledge base. Names use English letters, digits and underscores and must not ' +
          'start with an underscore, and must not be taken by another knowledge base of the account. Use type ' +
          '"image" for a base of pictures, "text" (default) for documents.',
        parameters: z.object({
          name: z
            .string()
            .regex(
              /^[A-Za-z0-9][A-Za-z0-9_]*$/,
              'letters, digits and underscores only, not starting with "_"',
            )
            .describe('Name of the knowledge base, e.g. "product_manuals"'),
          type: z.enum(['text', 'image']).optional().describe('Kind of content: "text" (default) or "image"'),
        }),
        needsApproval: approval('create_knowledge_base', false),
        execute: async (args, { signal }) => {
          // The service accepts a second store of the same name; a name would then no longer say which.
          if (!allowDuplicateNames) await assertKnowledgeBaseNameFree(client, args.name, signal);
          return describeStore(await client.vectorStores.create(compact(args), { signal }));
        },
      }),
    get_knowledge_base: () =>
      defineTool({
        name: 'get_knowledge_base',
        description:
          'Get one knowledge base by id: its name, type and how many files are processing, done or failed.',
        parameters: z.object({ knowledge_base_id: storeId }),
        needsApproval: approval('get_knowledge_base', false),
        execute: async ({ knowledge_base_id }, { signal }) =>
          describeStore(await client.vectorStores.retrieve(knowledge_base_id, { signal })),
      }),
    add_files_to_knowledge_base: () =>
      defineTool({
        name: 'add_files_to_knowledge_base',
        description:
          'Add already uploaded files (purpose retrieval-text or retrieval-image) to a knowledge base so they ' +
          'can be searched. Waits until each file has finished processing. Every file added to an image ' +
          'knowledge base needs a description of the picture (at most 255 characters).',
        parameters: z.object({
          knowledge_base_id: storeId,
          files: z
            .array(
              z.object({
                file_id: z
                  .string()
                  .min(1)
                  .refine(isSafePathId, pathIdRule)
                  .describe('Id of an uploaded file'),
                description: z
                  .string()
                  .max(255)
                  .optional()
                  .describe(
                    'What the file shows; required for image knowledge bases, at most 255 characters',
                  ),
              }),
            )
            .min(1)
            .describe('The files to add'),
        }),
        needsApproval: approval('add_files_to_knowledge_base', false),
        // Waiting for parsing can take a while; leave room for it beyond the per-file wait.
        timeoutMs: fileReadyTimeoutMs + 60_000,
        execute: async ({ knowledge_base_id, files }, { signal }) =>
          addFiles(client, knowledge_base_id, files, { timeout: fileReadyTimeoutMs, signal }),
      }),
    list_knowledge_base_files: () =>
      defineTool({
        name: 'list_knowledge_base_files',
        description: 'List the files inside a knowledge base, newest first, with their ids and file names.',
        parameters: z.object({
          knowledge_base_id: storeId,
          limit,
          after,
          order: z
            .enum(['asc', 'desc'])
            .optional()
            .describe('"desc" (default) newest first, "asc" oldest first'),
        }),
        needsApproval: approval('list_knowledge_base_files', false),
        execute: async ({ knowledge_base_id, ...query }, { signal }) => {
          const page = await client.vectorStores.files.list(knowledge_base_id, compact(query), { signal });
          return {
            files: page.data.map((file) => ({
              id: file.id,
              file_name: file.metadata?.file_name,
              description: file.metadata?.description,
              created_at: file.created_at,
            })),
            has_more: page.has_more,
            last_id: page.last_id,
          };
        },
      }),
    remove_file_from_knowledge_base: () =>
      defineTool({
        name: 'remove_file_from_knowledge_base',
        description:
          'Remove a file from a knowledge base so it is no longer searched. The uploaded file itself is kept. ' +
          'A person may have to approve this first.',
        parameters: z.object({
          knowledge_base_id: storeId,
          file_id: z.string().min(1).refine(isSafePathId, pathIdRule).describe('Id of the file'),
        }),
        needsApproval: approval('remove_file_from_knowledge_base', true),
        execute: async ({ knowledge_base_id, file_id }, { signal }) =>
          client.vectorStores.files.delete(knowledge_base_id, file_id, { signal }),
      }),
    search_knowledge_base: () =>
      searchKnowledgeBaseTool(client, {
        knowledgeBases: options.knowledgeBases,
        model: options.searchModel,
        needsApproval: approval('search_knowledge_base', false),
      }),
  };
  return selectTools('knowledge-base', factories, options);
}

/** Adds uploaded files to a store once each is ready, refusing (to the model) what the store cannot take. */
async function addFiles(
  client: SvcClient,
  knowledge_base_id: string,
  files: { file_id: string; description?: string | undefined }[],
  { timeout, signal }: { timeout: number; signal: AbortSignal | undefined },
) {
  const store = await client.vectorStores.retrieve(knowledge_base_id, { signal });
  if (store.type === 'image') {
    const missing = files.filter((file) => !file.description?.trim()).map((file) => file.file_id);
    if (missing.length > 0) {
      // The model's arguments break the store's rule: it is told, and can correct itself.
      throw new ModelBehaviorError(
        `knowledge base ${store.name} holds images, so every file needs a description; missing for ${missing.join(', ')}`,
      );
    }
  }
  const ready = await Promise.all(
    files.map((file) => client.files.waitUntilReady(file.file_id, { timeout, signal })),
  );
  const wanted = purposesFor(store);
  const wrong = ready.filter((file) => !wanted.includes(file.purpose));
  if (wrong.length > 0) {
    const list = wrong.map((file) => `${file.id} (${file.purpose})`).join(', ');
    throw new ModelBehaviorError(
      `knowledge base ${store.name} takes files uploaded with purpose ${wanted.join(' or ')}; not ${list}`,
    );
  }
  const result = await client.vectorStores.files.create(
    knowledge_base_id,
    { files: files.map((file) => compact(file)) },
    { signal },
  );
  return { knowledge_base_id, added: result.files };
}

/** Upload purposes a store accepts; a store whose type the service did not report takes either. */
function purposesFor(store: VectorStore): string[] {
  if (store.type === 'image') return ['retrieval-image'];
  if (store.type === 'text') return ['retrieval-text'];
  return ['retrieval-text', 'retrieval-image'];
}
