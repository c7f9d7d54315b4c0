import { APIError, type APIErrorInit } from './api-error.js';

/** Content moderation refused the request or the answer (451); never retried. */
export class ContentModerationError extends APIError {
  override readonly status = 451 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 451 });
  }
}
