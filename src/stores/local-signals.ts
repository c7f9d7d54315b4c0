import type { SignalStore } from '../agent/durable/store.js';
import { checkOnSignal, checkSignal } from './shared-state-checks.js';
import { SignalListeners } from './signal-listeners.js';
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
  const listeners = new SignalListeners(onWarning);
  return {
    async signal(channel, message) {
      checkSignal(channel, message);
      const snapshot = listeners.snapshot(channel);
      if (snapshot) queueMicrotask(() => deliverSignal(snapshot, channel, message, onWarning));
    },
    async onSignal(channel, listener) {
      checkOnSignal(channel, listener);
      const { remove } = listeners.add(channel, listener);
      return async () => {
        remove();
      };
    },
    clear() {
      listeners.clear();
    },
  };
}
