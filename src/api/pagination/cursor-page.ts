import { UserError } from '../../core/errors.js';
import type { CursorPageQuery, CursorPageResponse } from '../types/lists.js';

/** Fetches one page of a cursor list for the given query. */
export type FetchPage<T> = (query: CursorPageQuery) => Promise<CursorPageResponse<T>>;

/**
 * One page of a cursor list: the service's fields plus `hasNextPage()` and `nextPage()`, which asks for
 * the items after `last_id`. Iterating a page yields its own items only.
 */
export class CursorPage<T> implements CursorPageResponse<T> {
  /** Always `list`. */
  readonly object = 'list' as const;
  /** Items of this page. */
  readonly data: T[];
  /** Whether the service has more items after this page. */
  readonly has_more: boolean;
  /** Id of the first item of this page. */
  readonly first_id: string | null;
  /** Id of the last item of this page, the cursor of the next page. */
  readonly last_id: string | null;
  readonly #query: CursorPageQuery;
  readonly #fetchPage: FetchPage<T>;

  constructor(response: CursorPageResponse<T>, query: CursorPageQuery, fetchPage: FetchPage<T>) {
    this.data = Array.isArray(response.data) ? response.data : [];
    this.has_more = response.has_more === true;
    this.first_id = response.first_id ?? null;
    this.last_id = response.last_id ?? null;
    this.#query = query;
    this.#fetchPage = fetchPage;
  }

  /** True when another page follows; a page without items or cursor ends the list even if `has_more` says no. */
  hasNextPage(): boolean {
    return this.has_more && this.data.length > 0 && !!this.last_id;
  }

  /** Fetches the following page (`after = last_id`); throws when there is none. */
  async nextPage(): Promise<CursorPage<T>> {
    if (!this.hasNextPage())
      throw new UserError('No next page: check hasNextPage() before calling nextPage().');
    const { before: _before, ...rest } = this.#query;
    const query: CursorPageQuery = { ...rest, after: this.last_id! };
    return new CursorPage(await this.#fetchPage(query), query, this.#fetchPage);
  }

  /** Iterates this page and every following page, page by page. */
  async *iterPages(): AsyncGenerator<CursorPage<T>> {
    let page: CursorPage<T> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.nextPage();
      yield page;
    }
  }

  /** Iterates the items of this page and of every following page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.iterPages()) yield* page.data;
  }

  /** The service's own fields only, so logging a page shows data and cursors. */
  toJSON(): CursorPageResponse<T> {
    return {
      object: 'list',
      data: this.data,
      has_more: this.has_more,
      first_id: this.first_id,
      last_id: this.last_id,
    };
  }
}
