/** Bounds of an `LruMap`. */
export interface LruMapOptions {
  /** The most entries kept: adding one more evicts the least recently used. */
  maxEntries: number;
  /** An entry not read or written for this long is dropped. */
  idleTtlMs: number;
  /** The clock, for tests. @default Date.now */
  now?: () => number;
}

/**
 * A `Map` that keeps at most `maxEntries` entries and drops those idle for `idleTtlMs`: the bounded
 * memory of `memoryStore`. A `Map` iterates in insertion order, so moving an entry to the end on each use
 * keeps the least recently used first, and both evictions only ever look at the front: O(1) per use.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, { value: V; usedAt: number }>();
  readonly #maxEntries: number;
  readonly #idleTtlMs: number;
  readonly #now: () => number;

  constructor({ maxEntries, idleTtlMs, now = Date.now }: LruMapOptions) {
    this.#maxEntries = maxEntries;
    this.#idleTtlMs = idleTtlMs;
    this.#now = now;
  }

  /** How many entries are kept (idle ones not yet swept included). */
  get size(): number {
    return this.#entries.size;
  }

  /** The value, marking it used; `undefined` when absent or idle too long. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.#now();
    this.#entries.delete(key);
    if (now - entry.usedAt > this.#idleTtlMs) return undefined;
    entry.usedAt = now;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores the value as the most recently used, then evicts what is idle or over the bound. */
  set(key: K, value: V): void {
    const now = this.#now();
    this.#entries.delete(key);
    this.#entries.set(key, { value, usedAt: now });
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && now - entry.usedAt <= this.#idleTtlMs) break;
      this.#entries.delete(oldest);
    }
  }

  /** Removes the entry. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Every key and value still fresh, least recently used first, without marking them used. */
  *entries(): IterableIterator<[K, V]> {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (now - entry.usedAt <= this.#idleTtlMs) yield [key, entry.value];
    }
  }

  /** Every value still fresh, without marking them used. */
  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }
}
