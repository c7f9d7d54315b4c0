import type { HttpRequest } from '../../transport/http-request.js';
import type { HttpTransport } from '../../transport/http-transport.js';
import type { RequestOptions } from '../types/request-options.js';

/** What every resource of one client shares: the transport and whether requests are validated first. */
export interface ResourceContext {
  transport: HttpTransport;
  /** Check each request against the spec's rules before sending it. */
  validate: boolean;
}

/** Adds the per-call options to a request, leaving out the ones not given. */
export function withOptions(request: HttpRequest, options: RequestOptions | undefined): HttpRequest {
  if (!options) return request;
  const merged: HttpRequest = { ...request };
  if (options.signal) merged.signal = options.signal;
  if (options.timeout !== undefined) merged.timeout = options.timeout;
  if (options.maxRetries !== undefined) merged.maxRetries = options.maxRetries;
  if (options.headers) merged.headers = { ...request.headers, ...options.headers };
  return merged;
}

/** Encodes one path segment (ids come from users and from the service). */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
