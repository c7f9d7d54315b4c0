/** A plain (non-paginated) list response: `{ object: 'list', data }`. */
export interface ListResponse<T> {
  object: 'list';
  data: T[];
}

/** A cursor-paginated list response as sent by the service. */
export interface CursorPageResponse<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  first_id?: string | null;
  last_id?: string | null;
}

/** Query of every cursor-paginated list: `limit` 1-100 (default 20), `order` by creation time, cursor ids. */
export interface CursorPageQuery {
  /** Items per page, 1 to 100. @default 20 */
  limit?: number | `${number}`;
  /** `asc` oldest first, `desc` newest first. @default 'desc' */
  order?: 'asc' | 'desc';
  /** Return items before this id. */
  before?: string;
  /** Return items after this id. */
  after?: string;
}
