import { invalidParams } from './errors.js';

/** A page of a cursor list, in the service's shape. */
export interface CursorPage<T> {
  object: 'list';
  data: T[];
  first_id: string;
  last_id: string;
  has_more: boolean;
}

/**
 * Pages `items` (oldest first) with the service's `limit` (1-100, default 20), `order` (`desc` default),
 * `after` and `before` cursors (ids of items).
 */
export function paginate<T extends { id: string }>(items: T[], query: URLSearchParams): CursorPage<T> {
  const limitText = query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalidParams('limit: must be an integer between 1 and 100');
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalidParams('order: must be "asc" or "desc"');
  const sorted = order === 'asc' ? items : [...items].reverse();
  const after = query.get('after');
  const before = query.get('before');
  let data: T[];
  let hasMore: boolean;
  if (after) {
    const at = indexOfCursor(sorted, after, 'after');
    const rest = sorted.slice(at + 1);
    data = rest.slice(0, limit);
    hasMore = rest.length > limit;
  } else if (before) {
    const at = indexOfCursor(sorted, before, 'before');
    const head = sorted.slice(0, at);
    data = head.slice(Math.max(0, head.length - limit));
    hasMore = head.length > limit;
  } else {
    data = sorted.slice(0, limit);
    hasMore = sorted.length > limit;
  }
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: hasMore,
  };
}

function indexOfCursor<T extends { id: string }>(items: T[], id: string, field: string): number {
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) throw invalidParams(`${field}: unknown cursor id '${id}'`);
  return index;
}
