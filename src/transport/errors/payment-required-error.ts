import { APIError, type APIErrorInit } from './api-error.js';

/** The account balance or plan quota is exhausted (402, e.g. `quota_exceeded`). */
export class PaymentRequiredError extends APIError {
  override readonly status = 402 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 402 });
  }
}
