import type { ListResponse } from '../types/lists.js';
import { LazyListPromise } from './lazy-list-promise.js';

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
export class ListPromise<T> extends LazyListPromise<ListPage<T>, T> {
  constructor(fetch: () => Promise<ListResponse<T>>) {
    super(() => fetch().then((response) => new ListPage(response)));
  }
}
