import { APIError, type APIErrorInit } from './api-error.js';

/** The service failed or is overloaded (any status >= 500, e.g. 500, 503, 504); retried automatically. */
export class InternalServerError extends APIError {
  declare readonly status: number;

  constructor(message: string, init: APIErrorInit & { status: number }) {
    super(message, init);
  }
}
