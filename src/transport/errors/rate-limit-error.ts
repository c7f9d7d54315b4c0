import { APIError, type APIErrorInit } from './api-error.js';

/** The account's rate limit was hit (429); retried automatically with backoff. */
export class RateLimitError extends APIError {
  override readonly status = 429 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 429 });
  }
}
