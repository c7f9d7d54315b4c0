// Subscribers of each signal, behind the one real listener this module adds to it.
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts. Requests and tool calls subscribe and unsubscribe many times
 * on one long-lived signal (a run's, or a server's shutdown signal): they share a single `abort` listener,
 * and each subscription is a Set entry instead of an EventTarget listener (far cheaper to add and remove,
 * and no max-listeners warning with many calls in flight). Like `addEventListener`, nothing fires for a
 * signal that is already aborted: check `signal.aborted` first.
 */
export function addAbortListener(signal: AbortSignal, listener: () => void): void {
  let set = subscribers.get(signal);
  if (set === undefined) {
    const created = new Set<() => void>();
    set = created;
    subscribers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const subscriber of created) subscriber();
      },
      { once: true },
    );
  }
  set.add(listener);
}

/** Ends a subscription made with {@link addAbortListener}; unknown listeners are ignored. */
export function removeAbortListener(signal: AbortSignal, listener: () => void): void {
  subscribers.get(signal)?.delete(listener);
}
