import { APIConnectionError } from './api-connection-error.js';

/** An attempt took longer than the `timeout` option (ms per attempt); retried like a connection error. */
export class APITimeoutError extends APIConnectionError {
  /** The per-attempt limit that was exceeded, in ms. */
  readonly timeout: number | undefined;

  constructor(timeout?: number, options: { cause?: unknown } = {}) {
    super(timeout === undefined ? 'Request timed out.' : `Request timed out after ${timeout} ms.`, options);
    this.timeout = timeout;
  }
}
