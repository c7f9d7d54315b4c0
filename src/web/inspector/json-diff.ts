import { isDeepStrictEqual } from 'node:util';

/** One difference between two JSON values, at `path` (`messages[3].content`). */
export interface JsonChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/**
 * The differences from `before` to `after`, walking objects and arrays down to the values that differ;
 * a value whose type changed is one `changed` entry. Key order does not matter (PostgreSQL reorders it).
 */
export function jsonDiff(before: unknown, after: unknown, path = ''): JsonChange[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isContainer(before) && isContainer(after) && Array.isArray(before) === Array.isArray(after)) {
    const changes: JsonChange[] = [];
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const at = Array.isArray(after) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      const has = [Object.hasOwn(before, key), Object.hasOwn(after, key)];
      const old = (before as Record<string, unknown>)[key];
      const now = (after as Record<string, unknown>)[key];
      if (has[0] && !has[1]) changes.push({ path: at, kind: 'removed', before: old });
      else if (!has[0] && has[1]) changes.push({ path: at, kind: 'added', after: now });
      else changes.push(...jsonDiff(old, now, at));
    }
    return changes;
  }
  return [{ path: path || '(root)', kind: 'changed', before, after }];
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
