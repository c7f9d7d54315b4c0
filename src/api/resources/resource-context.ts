import type { HttpRequest } from '../../transport/http-request.js';
import type { HttpTransport } from '../../transport/http-transport.js';
import { validateResourceId } from '../schemas/validate-resource-id.js';
import type { RequestOptions } from '../types/request-options.js';

/** What every resource of one client shares: the transport and whether requests are validated first. */
export interface ResourceContext {
  transport: HttpTransport;
  /** Check each request against the spec's rules before sending it. */
  validate: boolean;
}

/**
 * Adds the per-call options to a request, leaving out the ones not given. `request` is the object literal
 * the resource method just built: it is completed in place (no copy per request) and returned.
 */
export function withOptions(request: HttpRequest, options: RequestOptions | undefined): HttpRequest {
  if (!options) return request;
  if (options.signal) request.signal = options.signal;
  if (options.timeout !== undefined) request.timeout = options.timeout;
  if (options.maxRetries !== undefined) request.maxRetries = options.maxRetries;
  if (options.headers) request.headers = { ...request.headers, ...options.headers };
  if (options.onRetry) request.onRetry = options.onRetry;
  return request;
}

/**
 * Encodes one path segment (ids come from users, models and the service). Refuses `.`, `..` and ids with
 * `/` or `\` even with `validate: false`: a server that normalises URLs would act on another path.
 */
export function segment(id: string): string {
  // The same rule as `validate` checks, the same error; an empty id is left to `validate` alone.
  if (typeof id === 'string' && id !== '') validateResourceId(id, 'id', 'request');
  return encodeURIComponent(id);
}
