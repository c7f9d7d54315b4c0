import { APIError } from './api-error.js';

/** No complete response: DNS, refused or reset connection, or a stream cut mid-way. Retried before the first byte. */
export class APIConnectionError extends APIError {
  constructor(message = 'Connection error.', options: { cause?: unknown } = {}) {
    super(message, options);
  }

  override get isRetryable(): boolean {
    return true;
  }
}
