import type { SvcClient } from '../../api/svc-client.js';
import type { VectorStore } from '../../api/types/vector-stores.js';

/** Finds a knowledge base by id or by name (the service answers creation with both). */
export async function resolveStore(client: SvcClient, idOrName: string): Promise<VectorStore> {
  for await (const store of client.vectorStores.list({ limit: 100 })) {
    if (store.id === idOrName || store.name === idOrName) return store;
  }
  throw new Error(`no knowledge base with id or name "${idOrName}"; see: svc-agents kb ls`);
}
