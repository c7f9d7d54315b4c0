/** A JSON Schema node, read loosely. */
export type Schema = Record<string, unknown>;

/** The node a local `$ref` (`#/$defs/...`) points to, followed until it is not a reference. */
export function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return schema;
  let node: unknown = root;
  for (const key of ref.slice(2).split('/').filter(Boolean)) node = (node as Schema | undefined)?.[key];
  return node && typeof node === 'object' ? resolve(node as Schema, root) : {};
}

/** The schema's type, `null` skipped in a type list, inferred from `properties` or `items` when absent. */
export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null') ?? 'null';
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/** A number moved inside the schema's minimum/maximum bounds. */
export function clamp(value: number, schema: Schema): number {
  let out = value;
  if (typeof schema.minimum === 'number') out = Math.max(schema.minimum, out);
  if (typeof schema.maximum === 'number') out = Math.min(schema.maximum, out);
  if (typeof schema.exclusiveMinimum === 'number' && out <= schema.exclusiveMinimum)
    out = schema.exclusiveMinimum + 1;
  if (typeof schema.exclusiveMaximum === 'number' && out >= schema.exclusiveMaximum)
    out = schema.exclusiveMaximum - 1;
  return out;
}
