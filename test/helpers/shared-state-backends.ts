import type { Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import type { StoreOptions } from '../../src/stores/store-options.js';

/** Two store objects on one backend (the views of two processes), and how to remove what they wrote. */
export interface OpenedSharedState {
  a: Store;
  b: Store;
  cleanup(): Promise<void>;
}

/** A backend the shared-state contract (event logs, signals, values) runs on. */
export interface SharedStateBackend {
  name: string;
  available: boolean;
  open(options: Pick<StoreOptions, 'onWarning'>): Promise<OpenedSharedState>;
}

/** Every bundled store; memoryStore shares state only within one object, so both views are that object. */
export const sharedStateBackends: SharedStateBackend[] = [
  {
    name: 'memoryStore',
    available: true,
    async open(options) {
      const store = memoryStore(options);
      return { a: store, b: store, cleanup: () => store.close() };
    },
  },
];
