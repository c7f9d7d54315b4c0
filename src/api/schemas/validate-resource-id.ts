import { RequestValidationError } from '../errors.js';

/** The rule a path id breaks, if any: empty, `.` or `..`, or holding `/` or `\`. */
export function pathIdProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value === '.' || value === '..')
    return `must not be "${value}" (a server that normalises URLs would address another path)`;
  if (value.includes('/') || value.includes('\\'))
    return 'must not contain "/" or "\\" (a server that decodes it would address another path)';
  return undefined;
}

/** The message of a built-in tool's id schema when {@link isSafePathId} refuses the id. */
export const pathIdRule = 'must be one id: not "." or "..", no "/" or "\\"';

/** True when `value` may stand alone as one URL path segment (see {@link pathIdProblem}). */
export function isSafePathId(value: string): boolean {
  return pathIdProblem(value) === undefined;
}

/**
 * Throws `RequestValidationError` unless a path parameter (`vector_store_id`, `file_id`, ...) is a
 * non-empty string that is one path segment (not `.`, `..`, no `/` or `\`), so an id never turns into a
 * request for a different path: `DELETE /v1/vector_stores/../files/<id>` would delete the file itself.
 * @example validateResourceId(storeId, 'vector_store_id', 'vectorStores.retrieve')
 */
export function validateResourceId(value: unknown, name: string, operation: string): void {
  const problem = typeof value === 'string' ? pathIdProblem(value) : undefined;
  if (typeof value === 'string' && problem === undefined) return;
  const message =
    value === undefined ? 'required' : typeof value === 'string' ? problem! : 'must be a string';
  throw new RequestValidationError({
    operation,
    issues: [{ path: name, message, code: 'request_params_invalid' }],
  });
}
