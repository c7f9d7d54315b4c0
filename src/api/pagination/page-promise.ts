import type { CursorPageQuery } from '../types/lists.js';
import { CursorPage, type FetchPage } from './cursor-page.js';

/**
 * The result of a cursor list call, as in openai-node: `await` it for the first page, or
 * `for await (const item of list)` over every item of every page. The first request is sent lazily, once.
 *
 * @example
 * for await (const file of client.vectorStores.files.list(storeId)) console.log(file.id);
 */
export class PagePromise<T> implements PromiseLike<CursorPage<T>>, AsyncIterable<T> {
  readonly #query: CursorPageQuery;
  readonly #fetchPage: FetchPage<T>;
  #first: Promise<CursorPage<T>> | undefined;

  constructor(query: CursorPageQuery, fetchPage: FetchPage<T>) {
    this.#query = query;
    this.#fetchPage = fetchPage;
  }

  #page(): Promise<CursorPage<T>> {
    this.#first ??= this.#fetchPage(this.#query).then(
      (response) => new CursorPage(response, this.#query, this.#fetchPage),
    );
    return this.#first;
  }

  /** Resolves to the first page. */
  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaitable by design, like openai-node's.
  then<R1 = CursorPage<T>, R2 = never>(
    onfulfilled?: ((page: CursorPage<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#page().then(onfulfilled, onrejected);
  }

  /** Handles a failure of the first page. */
  catch<R = never>(
    onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null,
  ): Promise<CursorPage<T> | R> {
    return this.#page().catch(onrejected);
  }

  /** Runs `onfinally` once the first page settles. */
  finally(onfinally?: (() => void) | null): Promise<CursorPage<T>> {
    return this.#page().finally(onfinally);
  }

  /** Iterates every item of every page, fetching the next page while `has_more`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* await this.#page();
  }
}
