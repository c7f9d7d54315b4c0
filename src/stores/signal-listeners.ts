import { deliverSignal } from './store-utils.js';

/**
 * The listeners of a store's signal channels: the one registry behind every `SignalStore` backend
 * (in-process, Redis pub/sub, PostgreSQL LISTEN/NOTIFY). Each subscription is its own entry, so one
 * function subscribed twice needs two unsubscribes; a backend learns when a channel gets its first
 * listener (subscribe it) and loses its last (unsubscribe it).
 */
export class SignalListeners {
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #onWarning: (message: string) => void;

  constructor(onWarning: (message: string) => void) {
    this.#onWarning = onWarning;
  }

  /** Adds `listener` to `channel`; answers whether it is the channel's first, and how to remove it. */
  add(channel: string, listener: (message: string) => void): { first: boolean; remove: () => boolean } {
    const own = (message: string) => listener(message);
    let set = this.#channels.get(channel);
    const first = set === undefined;
    if (!set) {
      set = new Set();
      this.#channels.set(channel, set);
    }
    set.add(own);
    const subscribed = set;
    return {
      first,
      // Answers whether this removed the channel's last listener.
      remove: () => {
        if (!subscribed.delete(own)) return false;
        if (subscribed.size > 0 || this.#channels.get(channel) !== subscribed) return false;
        this.#channels.delete(channel);
        return true;
      },
    };
  }

  /** True when `channel` has a listener. */
  has(channel: string): boolean {
    return this.#channels.has(channel);
  }

  /** The channels that have listeners (what a reconnected backend subscribes again). */
  channels(): string[] {
    return [...this.#channels.keys()];
  }

  /** The listeners of `channel` now (a signal delivered later reaches these), or undefined when none. */
  snapshot(channel: string): Array<(message: string) => void> | undefined {
    const set = this.#channels.get(channel);
    return set && set.size > 0 ? [...set] : undefined;
  }

  /** Calls each listener of `channel` with `message`; one that throws is reported, the others still run. */
  deliver(channel: string, message: string): void {
    const set = this.#channels.get(channel);
    if (set && set.size > 0) deliverSignal([...set], channel, message, this.#onWarning);
  }

  /** Drops every listener (a closed store). */
  clear(): void {
    this.#channels.clear();
  }
}
