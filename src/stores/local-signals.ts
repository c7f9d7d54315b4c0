import type { SignalStore } from '../agent/durable/store.js';
import { checkOnSignal, checkSignal } from './shared-state-checks.js';
import { deliverSignal } from './store-utils.js';

/** `SignalStore` within one process, plus `clear` (a closed store drops its listeners). */
export interface LocalSignals extends SignalStore {
  /** Drops every listener. */
  clear(): void;
}

/**
 * Signals between the users of one store object (or, for `fileStore`, every store of the same folder in
 * this process). Delivery is asynchronous, as over a network: `signal` answers before listeners run, and
 * a listener that throws is reported to `onWarning` without keeping the message from the others.
 */
export function createLocalSignals(onWarning: (message: string) => void): LocalSignals {
  const listeners = new Map<string, Set<(message: string) => void>>();
  return {
    async signal(channel, message) {
      checkSignal(channel, message);
      const current = listeners.get(channel);
      if (!current || current.size === 0) return;
      const snapshot = [...current];
      queueMicrotask(() => deliverSignal(snapshot, channel, message, onWarning));
    },
    async onSignal(channel, listener) {
      checkOnSignal(channel, listener);
      // Each subscription is its own entry, so subscribing one function twice needs two unsubscribes.
      const own = (message: string) => listener(message);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(own);
      return async () => {
        const current = listeners.get(channel);
        current?.delete(own);
        if (current?.size === 0) listeners.delete(channel);
      };
    },
    clear() {
      listeners.clear();
    },
  };
}
