/**
 * The awaitable, iterable result of a list call: `await` it for the loaded page `P`, or
 * `for await (const item of list)` over the items `P` iterates. The request is sent lazily, once, when
 * first awaited or iterated. {@link PagePromise} and {@link ListPromise} are its two kinds.
 */
export class LazyListPromise<P extends AsyncIterable<T>, T> implements PromiseLike<P>, AsyncIterable<T> {
  readonly #fetch: () => Promise<P>;
  #page: Promise<P> | undefined;

  constructor(fetch: () => Promise<P>) {
    this.#fetch = fetch;
  }

  #load(): Promise<P> {
    this.#page ??= this.#fetch();
    return this.#page;
  }

  /** Resolves to the (first) page. */
  // biome-ignore lint/suspicious/noThenProperty: awaitable by design, like openai-node's list promises.
  then<R1 = P, R2 = never>(
    onfulfilled?: ((page: P) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#load().then(onfulfilled, onrejected);
  }

  /** Handles a failure of the (first) page. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<P | R> {
    return this.#load().catch(onrejected);
  }

  /** Runs `onfinally` once the (first) page settles. */
  finally(onfinally?: (() => void) | null): Promise<P> {
    return this.#load().finally(onfinally);
  }

  /** Iterates every item (for a cursor list: of every page, fetching the next while `has_more`). */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* await this.#load();
  }
}
