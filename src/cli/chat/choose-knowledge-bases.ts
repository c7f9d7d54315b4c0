import type { SvcClient } from '../../api/svc-client.js';
import { findKnowledgeBases, listAllKnowledgeBases } from '../../tools/built-in/find-knowledge-bases.js';
import { MAX_DEFAULT_KNOWLEDGE_BASES } from '../../tools/built-in/search-knowledge-base.js';

/**
 * The knowledge bases `chat` and `serve` search: those given with `--kb` (each checked now, so a typo or a
 * shared name fails before the chat starts), else all of the account's when it has a few (at most 5),
 * else none chosen (`undefined`: the model names one when it searches). Names are kept where they are
 * unique, for the model and the citations; a store whose name is shared is chosen by id.
 */
export async function chooseKnowledgeBases(
  client: SvcClient,
  refs: readonly string[],
): Promise<readonly string[] | undefined> {
  if (refs.length > 0) {
    await findKnowledgeBases(client, refs);
    return refs;
  }
  const stores = await listAllKnowledgeBases(client);
  if (stores.length === 0 || stores.length > MAX_DEFAULT_KNOWLEDGE_BASES) return undefined;
  const shared = (name: string) => stores.filter((store) => store.name === name).length > 1;
  return stores.map((store) => (shared(store.name) ? store.id : store.name));
}

/** The `--kb` values of a command (the flag may be repeated). */
export function knowledgeBaseFlags(value: string | boolean | string[] | undefined): string[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}
