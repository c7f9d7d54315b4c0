/** An HTTP error the emulator answers with the service's body shape `{"error":{"message","type"}}`. */
export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'EmulatorHttpError';
  }
}

/** The service's error body. */
export function errorBody(
  message: string,
  type: string,
): { error: { message: string; type: string; code: string } } {
  // The service's bodies carry `type`; the spec's error table calls the same value the "code" (HTTP 400,
  // code `request_params_invalid`), and OpenAI-style SDKs read `error.code`: both name it.
  return { error: { message, type, code: type } };
}

/** The error `type` the emulator uses for a status when nothing more specific applies. */
export function errorTypeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'request_params_invalid';
    case 401:
      return 'invalid_api_key';
    case 402:
      return 'quota_exceeded';
    case 404:
      return 'not_found';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_exceeded';
    case 451:
      return 'content_moderation';
    case 503:
      return 'service_unavailable';
    case 504:
      return 'gateway_timeout';
    default:
      return status >= 500 ? 'internal_error' : 'request_failed';
  }
}

/** 400 `request_params_invalid`, the message naming the field: `messages[1].role: ...`. */
export function invalidParams(message: string): EmulatorHttpError {
  return new EmulatorHttpError(400, 'request_params_invalid', message);
}

/** 404 `not_found` for an unknown id. */
export function notFound(what: string, id: string): EmulatorHttpError {
  return new EmulatorHttpError(404, 'not_found', `No ${what} found with id '${id}'`);
}
