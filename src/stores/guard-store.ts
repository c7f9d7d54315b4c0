import type { RunQueryStore } from '../agent/durable/run-query.js';
import type { RunEventLogStore, SharedValueStore, SignalStore, Store } from '../agent/durable/store.js';
import { SvcError } from '../core/errors.js';
import { APPEND_AND_SIGNAL, type AppendAndSignal } from './run-events-signal.js';
import { StoreClosedError, StoreUnavailableError } from './store-errors.js';

/** The methods a guarded store wraps (every operation of `Store`). */
const OPERATIONS = [
  'createRun',
  'getRun',
  'updateRun',
  'commitRun',
  'listRuns',
  'queryRuns',
  'deleteRun',
  'pruneRuns',
  'getItems',
  'addItems',
  'popItem',
  'clearSession',
  'appendRunEvents',
  'readRunEvents',
  'signal',
  'onSignal',
  'getValue',
  'setValueIf',
] as const;

/** A programming error (ours or the caller's), never a sign of a lost connection. */
export function isProgrammingError(error: unknown): boolean {
  return (
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError
  );
}

/**
 * A bundled store: `close`, `pruneRuns` and the shared state a chat on several servers needs (event logs,
 * signals, compare-and-set values) and the run index (`queryRuns`) always present.
 */
export type GuardedStore = Store &
  Required<Pick<Store, 'close' | 'pruneRuns'>> &
  RunQueryStore &
  RunEventLogStore &
  SignalStore &
  SharedValueStore & {
    /** The store's append with its signal in one trip, when it has one (internal). */
    [APPEND_AND_SIGNAL]?: AppendAndSignal;
  };

/**
 * Gives a store its failure contract in one place: after `close()` every operation rejects with
 * `StoreClosedError` (and the store never opens a connection again); a driver error that
 * `isConnectionError` recognises becomes a transient `StoreUnavailableError` naming the store and the
 * operation. The store's own errors (`RunConflictError`, `StoredRunInvalidError`) pass unchanged.
 */
export function guardStore(
  storeName: string,
  store: GuardedStore,
  isConnectionError: (error: unknown) => boolean,
  onConnectionError?: (error: unknown) => void,
): GuardedStore {
  let closed = false;
  const guarded = {
    async close() {
      if (closed) return;
      closed = true;
      await store.close();
    },
  } as GuardedStore;
  // The internal append-and-signal is guarded as the append it is.
  const operations: Array<[keyof GuardedStore, (typeof OPERATIONS)[number]]> = [
    ...OPERATIONS.map(
      (operation) => [operation, operation] as [keyof GuardedStore, (typeof OPERATIONS)[number]],
    ),
    [APPEND_AND_SIGNAL, 'appendRunEvents'],
  ];
  for (const [key, operation] of operations) {
    const method = store[key] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    // `commitRun` and the shared-state operations are optional: a store without one goes on without it.
    if (method === undefined) continue;
    (guarded as unknown as Record<PropertyKey, unknown>)[key] = async (...args: unknown[]) => {
      if (closed) throw new StoreClosedError({ store: storeName, operation });
      try {
        return await method.apply(store, args);
      } catch (error) {
        if (SvcError.isInstance(error)) throw error;
        if (closed) throw new StoreClosedError({ store: storeName, operation });
        if (!isProgrammingError(error) && isConnectionError(error)) {
          onConnectionError?.(error);
          throw new StoreUnavailableError({ store: storeName, operation, cause: error });
        }
        throw error;
      }
    };
  }
  return guarded;
}
