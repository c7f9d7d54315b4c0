import type { ListResponse } from '../types/lists.js';

/**
 * A whole list the service returns in one response (models, files): the service's `{ object, data }`,
 * iterable with `for...of` and `for await...of` like every other list of the client.
 */
export class ListPage<T> implements ListResponse<T>, Iterable<T>, AsyncIterable<T> {
  /** Always `list`. */
  readonly object = 'list' as const;
  /** Every item. */
  readonly data: T[];

  constructor(response: ListResponse<T>) {
    this.data = Array.isArray(response?.data) ? response.data : [];
  }

  /** Iterates the items. */
  [Symbol.iterator](): Iterator<T> {
    return this.data[Symbol.iterator]();
  }

  /** Iterates the items, so `for await (const m of client.models.list())` works as for paged lists. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* this.data;
  }

  /** The service's own fields only. */
  toJSON(): ListResponse<T> {
    return { object: 'list', data: this.data };
  }
}

/**
 * The result of a one-response list call: `await` it for the {@link ListPage} (`.data` as before), or
 * `for await (const item of list)` over its items, as with {@link PagePromise}. The request is sent once,
 * when first awaited or iterated.
 */
export class ListPromise<T> implements PromiseLike<ListPage<T>>, AsyncIterable<T> {
  readonly #fetch: () => Promise<ListResponse<T>>;
  #page: Promise<ListPage<T>> | undefined;

  constructor(fetch: () => Promise<ListResponse<T>>) {
    this.#fetch = fetch;
  }

  #load(): Promise<ListPage<T>> {
    this.#page ??= this.#fetch().then((response) => new ListPage(response));
    return this.#page;
  }

  /** Resolves to the list. */
  // biome-ignore lint/suspicious/noThenProperty: awaitable by design, like openai-node's list promises.
  then<R1 = ListPage<T>, R2 = never>(
    onfulfilled?: ((page: ListPage<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#load().then(onfulfilled, onrejected);
  }

  /** Handles a failure. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<ListPage<T> | R> {
    return this.#load().catch(onrejected);
  }

  /** Runs `onfinally` once the list settles. */
  finally(onfinally?: (() => void) | null): Promise<ListPage<T>> {
    return this.#load().finally(onfinally);
  }

  /** Iterates every item. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* (await this.#load()).data;
  }
}
