import { APIError, type APIErrorInit } from './api-error.js';

/** The path or the resource (file, vector store, model) does not exist (404). */
export class NotFoundError extends APIError {
  override readonly status = 404 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 404 });
  }
}
