import { APIError } from './api-error.js';

/** The caller's `signal` (or `abort()`) cancelled the request, its retry wait or its stream; never retried. */
export class APIUserAbortError extends APIError {
  constructor(message = 'Request was aborted.', options: { cause?: unknown } = {}) {
    super(message, options);
  }

  override get isRetryable(): boolean {
    return false;
  }
}
