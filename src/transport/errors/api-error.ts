import { SvcError } from './svc-error.js';

/** Fields every {@link APIError} carries; the status-specific subclasses take the same shape. */
export interface APIErrorInit {
  /** HTTP status, `undefined` when no response arrived (connection, timeout, abort). */
  status?: number | undefined;
  /** The service's `error.type` (e.g. `invalid_api_key`), when it sent one. */
  type?: string | undefined;
  /** The `X-Trace-Id` response header: quote it to the service's support. */
  requestId?: string | undefined;
  /** Response headers, lower-cased names. */
  headers?: Record<string, string> | undefined;
  /** Parsed JSON error body, or the raw (truncated) text when it was not JSON. */
  body?: unknown;
  cause?: unknown;
}

/** Statuses that a later attempt may answer differently. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * A failed call to the service: an HTTP error status (see the subclasses by status) or no usable response
 * at all ({@link APIConnectionError}, {@link APITimeoutError}, {@link APIUserAbortError}).
 */
export class APIError extends SvcError {
  /** HTTP status, `undefined` when no response arrived. */
  readonly status: number | undefined;
  /** The service's `error.type` (e.g. `request_params_invalid`), when it sent one. */
  readonly type: string | undefined;
  /** The `X-Trace-Id` response header, when present. */
  readonly requestId: string | undefined;
  /** Response headers (lower-cased names); empty when no response arrived. */
  readonly headers: Record<string, string>;
  /** Parsed JSON error body, or the raw (truncated) text when it was not JSON. */
  readonly body: unknown;

  constructor(message: string, init: APIErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.type = init.type;
    this.requestId = init.requestId;
    this.headers = init.headers ?? {};
    this.body = init.body;
  }

  /** True when retrying the same request may succeed (408, 409, 429, 5xx, connection failures, timeouts). */
  get isRetryable(): boolean {
    return this.status !== undefined && isRetryableStatus(this.status);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), isRetryable: this.isRetryable };
  }
}
