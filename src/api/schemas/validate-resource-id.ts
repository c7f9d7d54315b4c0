import { RequestValidationError } from '../errors/request-validation-error.js';

/**
 * Throws `RequestValidationError` unless a path parameter (`vector_store_id`, `file_id`, ...) is a
 * non-empty string, so a missing id never turns into a request for a different path.
 * @example validateResourceId(storeId, 'vector_store_id', 'vectorStores.retrieve')
 */
export function validateResourceId(value: unknown, name: string, operation: string): void {
  if (typeof value === 'string' && value.length > 0) return;
  const message =
    value === undefined ? 'required' : typeof value === 'string' ? 'must not be empty' : 'must be a string';
  throw new RequestValidationError({
    operation,
    issues: [{ path: name, message, code: 'request_params_invalid' }],
  });
}
