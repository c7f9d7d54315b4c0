/** A JSON Schema node, read loosely. */
export type Schema = Record<string, unknown>;

/** What the boolean subschema `false` stands for: no value is valid (`true` is `{}`, any value). */
export const NO_VALUE: Schema = Object.freeze({ not: {} });

/** True for a schema no value satisfies (`false`, or `{ not: {} }`). */
export function acceptsNothing(schema: Schema): boolean {
  const not = schema.not;
  return not === true || (typeof not === 'object' && not !== null && Object.keys(not).length === 0);
}

/**
 * The node a local `$ref` (`#/$defs/...`) points to, followed until it is not a reference. A boolean
 * subschema (`items: false`, `properties: { x: true }`) is read as the object schema it stands for.
 */
export function resolve(schema: Schema | boolean | undefined, root: Schema): Schema {
  if (schema === undefined || schema === true) return {};
  if (schema === false) return NO_VALUE;
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return schema;
  let node: unknown = root;
  for (const key of ref.slice(2).split('/').filter(Boolean)) node = (node as Schema | undefined)?.[key];
  if (typeof node === 'boolean') return resolve(node, root);
  return node && typeof node === 'object' ? resolve(node as Schema, root) : {};
}

/**
 * An array schema's positional items (`prefixItems`, or a draft-07 `items` array) and the schema every
 * later item follows (`items` after `prefixItems`, else `additionalItems`; any value when absent).
 */
export function arrayShape(schema: Schema, root: Schema): { prefix: Schema[]; rest: Schema } {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  if (tuple === undefined) return { prefix: [], rest: resolve(schema.items as Schema | boolean, root) };
  const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
  return {
    prefix: tuple.map((item) => resolve(item as Schema | boolean, root)),
    rest: resolve(rest as Schema | boolean | undefined, root),
  };
}

/** The schema's type, `null` skipped in a type list, inferred from `properties` or `items` when absent. */
export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null') ?? 'null';
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
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
