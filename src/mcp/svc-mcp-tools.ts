import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { SvcClient } from '../api/svc-client.js';
import { fileTools } from '../tools/built-in/file-tools.js';
import { knowledgeBaseTools } from '../tools/built-in/knowledge-base-tools.js';
import type { Tool } from '../tools/tool.js';

/** Options of `svcMcpTools`. */
export interface SvcMcpToolsOptions {
  /** Local directory `upload_file` reads from. */
  root: string;
  /** Leave out every tool that changes something (creates, adds, uploads, removes, deletes). @default false */
  readOnly?: boolean;
  /** Model answering the hosted retrieval of `search_knowledge_base`. */
  model: string;
}

/** The built-in tools and their MCP hints: reading tools `readOnlyHint`, deleting ones `destructiveHint`. */
const hints: Record<string, ToolAnnotations> = {
  list_knowledge_bases: { readOnlyHint: true },
  get_knowledge_base: { readOnlyHint: true },
  list_knowledge_base_files: { readOnlyHint: true },
  search_knowledge_base: { readOnlyHint: true },
  create_knowledge_base: { readOnlyHint: false, destructiveHint: false },
  add_files_to_knowledge_base: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  remove_file_from_knowledge_base: { readOnlyHint: false, destructiveHint: true },
  list_files: { readOnlyHint: true },
  get_file: { readOnlyHint: true },
  read_file_content: { readOnlyHint: true },
  upload_file: { readOnlyHint: false, destructiveHint: false },
  delete_file: { readOnlyHint: false, destructiveHint: true },
};

/**
 * The svc tools `svc-agents mcp serve` offers: knowledge bases (including a retrieval search answered by
 * the service), files (uploads only from `root`), with MCP annotations. Tools that need approval in an
 * agent (removing and deleting) are destructive: `createMcpToolServer` refuses their calls unless told
 * to run them.
 */
export function svcMcpTools(
  client: SvcClient,
  options: SvcMcpToolsOptions,
): { tools: Tool[]; annotations: Record<string, ToolAnnotations> } {
  const all = [
    ...knowledgeBaseTools(client, { searchModel: options.model }),
    ...fileTools(client, { root: options.root }),
  ];
  const tools = options.readOnly ? all.filter((tool) => hints[tool.name]?.readOnlyHint === true) : all;
  return { tools, annotations: hints };
}
