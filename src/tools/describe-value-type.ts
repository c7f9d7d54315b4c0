/** JSON-ish type name of a value for error messages: `null`, `array`, `integer`-free `number`, `string`, ... */
export function describeValueType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

/** True when `path` names a key that is absent from an object found along `root`. */
export function isMissingKey(root: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !Object.hasOwn(node, last);
}
