/** The one real `abort` listener this module keeps on a signal, and the subscribers behind it. */
interface Subscription {
  readonly subscribers: Set<() => void>;
  readonly onAbort: () => void;
}

const subscriptions = new WeakMap<AbortSignal, Subscription>();

/**
 * Calls `listener` once when `signal` aborts. Requests and tool calls subscribe and unsubscribe many times
 * on one long-lived signal (a run's, or a server's shutdown signal): the calls in flight share a single
 * `abort` listener, and each subscription is a Set entry instead of an EventTarget listener (far cheaper to
 * add and remove, and no max-listeners warning with many calls in flight). The real listener goes when the
 * last subscriber does: nothing stays registered on a signal that outlives its calls, and Node keeps a
 * composite (`AbortSignal.any`) or timeout signal alive for as long as it has a listener. Like
 * `addEventListener`, nothing fires for a signal that is already aborted: check `signal.aborted` first.
 */
export function addAbortListener(signal: AbortSignal, listener: () => void): void {
  let subscription = subscriptions.get(signal);
  if (subscription === undefined) {
    const subscribers = new Set<() => void>();
    const onAbort = () => {
      subscriptions.delete(signal);
      for (const subscriber of subscribers) subscriber();
    };
    subscription = { subscribers, onAbort };
    subscriptions.set(signal, subscription);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  subscription.subscribers.add(listener);
}

/** Ends a subscription made with {@link addAbortListener}; unknown listeners are ignored. */
export function removeAbortListener(signal: AbortSignal, listener: () => void): void {
  const subscription = subscriptions.get(signal);
  if (subscription === undefined || !subscription.subscribers.delete(listener)) return;
  if (subscription.subscribers.size > 0) return;
  subscriptions.delete(signal);
  signal.removeEventListener('abort', subscription.onAbort);
}
