import { APIError, type APIErrorInit } from './api-error.js';

/** The API key is missing, wrong or revoked (401, `invalid_api_key`). */
export class AuthenticationError extends APIError {
  override readonly status = 401 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 401 });
  }
}
