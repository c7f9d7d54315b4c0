import { APIError, type APIErrorInit } from './api-error.js';

/**
 * A 2xx answer that could not be read: a body that is not JSON, a stream event that is not JSON, or a
 * streamed request answered with something other than an event stream (a proxy's HTML page, a JSON
 * body). Nothing local ran on it, so it is retryable like a connection error.
 */
export class InvalidResponseError extends APIError {
  constructor(message: string, init: APIErrorInit = {}) {
    super(message, { type: 'invalid_response', ...init });
  }

  override get isRetryable(): boolean {
    return true;
  }
}
