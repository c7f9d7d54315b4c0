/**
 * Finds a part of a zod schema that `defineTool` accepts but no call could ever pass: `z.date()` and
 * `z.bigint()` from `zod/v3` (JSON arguments carry neither a Date nor a BigInt) and async refinements or
 * transforms in either zod (arguments are checked synchronously). Answers the reason, or `undefined`.
 * zod 4's own dates and bigints are already refused by its JSON Schema conversion. A zod/v3 `.refine()`
 * hides its function in a closure: only `superRefine` and `transform` can be seen to be async.
 */
export function findUncallableSchema(schema: unknown): string | undefined {
  return visit(schema, 'parameters', new Set());
}

function isAsyncFunction(value: unknown): boolean {
  return typeof value === 'function' && value.constructor?.name === 'AsyncFunction';
}

const asyncRule = 'arguments are checked synchronously; check asynchronously inside execute instead';

function visit(node: unknown, path: string, seen: Set<unknown>): string | undefined {
  if (typeof node !== 'object' || node === null || seen.has(node)) return undefined;
  seen.add(node);
  const zod4 = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  const def = zod4 ?? (node as { _def?: Record<string, unknown> })._def;
  if (def === undefined) return undefined;
  if (zod4 === undefined) {
    const typeName = def.typeName;
    if (typeName === 'ZodDate')
      return `${path}: z.date() from zod/v3 can never match JSON arguments; use z.string().datetime() and convert in execute`;
    if (typeName === 'ZodBigInt')
      return `${path}: z.bigint() from zod/v3 can never match JSON arguments; use z.number().int() or a string of digits`;
    const effect = def.effect as { type?: string; refinement?: unknown; transform?: unknown } | undefined;
    if (effect && (isAsyncFunction(effect.refinement) || isAsyncFunction(effect.transform)))
      return `${path}: an async ${effect.type} can never run: ${asyncRule}`;
  } else {
    for (const check of (def.checks as Array<{ _zod?: { def?: { fn?: unknown } } }> | undefined) ?? []) {
      if (isAsyncFunction(check._zod?.def?.fn))
        return `${path}: an async refinement can never run: ${asyncRule}`;
    }
    if (isAsyncFunction(def.transform) || isAsyncFunction(def.fn))
      return `${path}: an async transform can never run: ${asyncRule}`;
  }
  const shape = typeof def.shape === 'function' ? (def.shape as () => unknown)() : def.shape;
  if (typeof shape === 'object' && shape !== null) {
    for (const [key, child] of Object.entries(shape)) {
      const found = visit(child, `${path}.${key}`, seen);
      if (found) return found;
    }
  }
  const children: Array<[unknown, string]> = [
    [def.element, `${path}[]`],
    [def.type, `${path}[]`],
    [def.innerType, path],
    [def.schema, path],
    [def.in, path],
    [def.out, path],
    [def.left, path],
    [def.right, path],
    [def.valueType, `${path}.*`],
    [def.keyType, path],
  ];
  for (const list of [def.options, def.items]) {
    if (Array.isArray(list)) for (const item of list) children.push([item, path]);
  }
  for (const [child, childPath] of children) {
    const found = visit(child, childPath, seen);
    if (found) return found;
  }
  return undefined;
}
