/**
 * Checks the JSON Schema of a function's parameters against the spec: root `type: "object"`, and every
 * property typed with JSON Schema types. Hand-written rather than a recursive zod schema so a large tool
 * list is walked once, without building output objects, on every request of an agent loop.
 */

/** Reports one broken rule at a path relative to the parameters object. */
export type ReportIssue = (path: PropertyKey[], message: string) => void;

const jsonTypes: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'object',
  'array',
  'boolean',
  'null',
]);
const typeRule =
  'must be one of "string", "number", "integer", "object", "array", "boolean" or "null", or an array of them';
const untypedKeys = ['anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const'] as const;
const maxDepth = 32;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isJsonType(type: unknown): boolean {
  if (typeof type === 'string') return jsonTypes.has(type);
  return (
    Array.isArray(type) &&
    type.length > 0 &&
    type.every((entry) => typeof entry === 'string' && jsonTypes.has(entry))
  );
}

function checkNode(
  node: unknown,
  path: PropertyKey[],
  depth: number,
  isProperty: boolean,
  report: ReportIssue,
): void {
  if (!isPlainObject(node)) {
    report(path, 'must be a JSON Schema object');
    return;
  }
  if (depth > maxDepth) {
    report(path, `nests deeper than ${maxDepth} levels`);
    return;
  }
  if (node.type !== undefined) {
    if (!isJsonType(node.type)) report([...path, 'type'], typeRule);
  } else if (isProperty && !untypedKeys.some((key) => node[key] !== undefined)) {
    report(path, 'needs a "type" (a JSON Schema type) or anyOf/oneOf/allOf/$ref/enum/const');
  }
  if (node.description !== undefined && typeof node.description !== 'string') {
    report([...path, 'description'], 'must be a string');
  }
  checkChildren(node, path, depth, report);
}

function checkChildren(
  node: Record<string, unknown>,
  path: PropertyKey[],
  depth: number,
  report: ReportIssue,
) {
  const { properties, items, additionalProperties, required } = node;
  if (properties !== undefined) {
    if (!isPlainObject(properties))
      report([...path, 'properties'], 'must be an object mapping names to schemas');
    else {
      for (const key in properties) {
        checkNode(properties[key], [...path, 'properties', key], depth + 1, true, report);
      }
    }
  }
  if (
    required !== undefined &&
    !(Array.isArray(required) && required.every((name) => typeof name === 'string'))
  ) {
    report([...path, 'required'], 'must be an array of property names');
  }
  if (Array.isArray(items)) {
    for (const [index, item] of items.entries())
      checkNode(item, [...path, 'items', index], depth + 1, false, report);
  } else if (items !== undefined && typeof items !== 'boolean') {
    checkNode(items, [...path, 'items'], depth + 1, false, report);
  }
  if (isPlainObject(additionalProperties)) {
    checkNode(additionalProperties, [...path, 'additionalProperties'], depth + 1, false, report);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[key];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length === 0)
      report([...path, key], 'must be a non-empty array of schemas');
    else
      for (const [index, branch] of branches.entries()) {
        checkNode(branch, [...path, key, index], depth + 1, false, report);
      }
  }
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = node[key];
    if (!isPlainObject(defs)) continue;
    for (const name in defs) checkNode(defs[name], [...path, key, name], depth + 1, false, report);
  }
}

/** Reports every rule the parameters schema breaks: root `type: "object"` and typed properties. */
export function checkParametersSchema(parameters: Record<string, unknown>, report: ReportIssue): void {
  if (parameters.type !== 'object') {
    report(['type'], parameters.type === undefined ? 'required, must be "object"' : 'must be "object"');
  }
  checkChildren(parameters, [], 0, report);
}
