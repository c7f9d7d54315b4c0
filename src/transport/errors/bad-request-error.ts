import { APIError, type APIErrorInit } from './api-error.js';

/** The request was rejected as invalid (400, e.g. `request_params_invalid`, `unsupported_content_type`). */
export class BadRequestError extends APIError {
  override readonly status = 400 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 400 });
  }
}
