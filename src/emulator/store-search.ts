import { type Passage, PassageIndex } from './search.js';
import type { EmulatorState } from './state.js';
import { fileText } from './utils.js';

const indexes = new WeakMap<EmulatorState, Map<string, { version: number; index: PassageIndex }>>();

/** Searches a vector store's files (only those parsed, `success`), rebuilding its index after any change. */
export function storeSearcher(state: EmulatorState): (storeId: string, query: string) => Passage[] {
  return (storeId, query) => {
    const store = state.stores.get(storeId);
    if (!store) return [];
    let perState = indexes.get(state);
    if (!perState) {
      perState = new Map();
      indexes.set(state, perState);
    }
    const now = Date.now();
    const ready = store.files.filter(
      (f) => (state.files.get(f.id)?.readyAt ?? Number.POSITIVE_INFINITY) <= now,
    );
    // Readiness changes with time alone, so it is part of the cache key.
    const version = state.version * 1000 + ready.length;
    let cached = perState.get(storeId);
    if (!cached || cached.version !== version) {
      const files = ready.map((f) => ({
        fileId: f.id,
        fileName: state.files.get(f.id)?.filename ?? f.id,
        text: fileText(state.content(f.id) ?? Buffer.alloc(0)),
      }));
      cached = { version, index: new PassageIndex(files) };
      perState.set(storeId, cached);
    }
    return cached.index.search(query);
  };
}
