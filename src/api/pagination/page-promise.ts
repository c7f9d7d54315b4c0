import type { CursorPageQuery } from '../types/lists.js';
import { CursorPage, type FetchPage } from './cursor-page.js';
import { LazyListPromise } from './lazy-list-promise.js';

/**
 * The result of a cursor list call, as in openai-node: `await` it for the first page, or
 * `for await (const item of list)` over every item of every page. The first request is sent lazily, once.
 *
 * @example
 * for await (const file of client.vectorStores.files.list(storeId)) console.log(file.id);
 */
export class PagePromise<T> extends LazyListPromise<CursorPage<T>, T> {
  constructor(query: CursorPageQuery, fetchPage: FetchPage<T>) {
    super(() => fetchPage(query).then((response) => new CursorPage(response, query, fetchPage)));
  }
}
