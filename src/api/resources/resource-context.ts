import type { HttpRequest } from '../../transport/http-request.js';
import type { HttpTransport } from '../../transport/http-transport.js';
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

/** Encodes one path segment (ids come from users and from the service). */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
