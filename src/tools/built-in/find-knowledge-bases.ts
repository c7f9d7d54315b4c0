import type { SvcClient } from '../../api/svc-client.js';
import type { VectorStore } from '../../api/types/vector-stores.js';
import { KnowledgeBaseNameError } from '../errors.js';

/** Every knowledge base of the account, all pages. */
export async function listAllKnowledgeBases(
  client: SvcClient,
  signal?: AbortSignal | undefined,
): Promise<VectorStore[]> {
  const stores: VectorStore[] = [];
  for await (const store of client.vectorStores.list({ limit: 100 }, signal ? { signal } : {})) {
    stores.push(store);
  }
  return stores;
}

/**
 * The store `ref` names among `stores`: an id wins, then a name that exactly one store has. A name
 * several stores share is a `KnowledgeBaseNameError` listing them all, never a silent pick.
 */
export function pickKnowledgeBase(stores: readonly VectorStore[], ref: string): VectorStore {
  const byId = stores.find((store) => store.id === ref);
  if (byId) return byId;
  const named = stores.filter((store) => store.name === ref);
  if (named.length === 1) return named[0] as VectorStore;
  throw new KnowledgeBaseNameError({
    problem: named.length === 0 ? 'not-found' : 'ambiguous',
    knowledgeBase: ref,
    stores: named.length === 0 ? stores : named,
  });
}

/** The stores `refs` (ids or names) name, in order and without repeats; one listing of the account. */
export async function findKnowledgeBases(
  client: SvcClient,
  refs: readonly string[],
  signal?: AbortSignal | undefined,
): Promise<VectorStore[]> {
  const stores = await listAllKnowledgeBases(client, signal);
  const found = refs.map((ref) => pickKnowledgeBase(stores, ref));
  return [...new Map(found.map((store) => [store.id, store])).values()];
}

/** Fails with `KnowledgeBaseNameError` (`taken`) when a store of the account already has `name`. */
export async function assertKnowledgeBaseNameFree(
  client: SvcClient,
  name: string,
  signal?: AbortSignal | undefined,
): Promise<void> {
  const taken = (await listAllKnowledgeBases(client, signal)).filter((store) => store.name === name);
  if (taken.length > 0)
    throw new KnowledgeBaseNameError({ problem: 'taken', knowledgeBase: name, stores: taken });
}
