import type { Store } from '../../src/agent/durable/store.js';
import { APPEND_AND_SIGNAL } from '../../src/stores/run-events-signal.js';
import type { ChatStateStore } from '../../src/web/chat-state.js';

/** A store whose signals never arrive, as when a pub/sub connection is down: only the re-read timers help. */
export function withoutSignals(store: Store): ChatStateStore {
  return new Proxy(store, {
    get: (target, key) =>
      key === 'signal' || key === 'onSignal' || key === APPEND_AND_SIGNAL
        ? undefined
        : Reflect.get(target, key),
  }) as ChatStateStore;
}
