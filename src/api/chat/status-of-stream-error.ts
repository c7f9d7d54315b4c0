/** The HTTP status an error reported inside a stream stands for: its own `status`/`code`, else its `type`. */
export function statusOfStreamError(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 500;
  const { status, code, type } = error as { status?: unknown; code?: unknown; type?: unknown };
  for (const value of [status, code]) {
    const number = typeof value === 'string' ? Number(value) : value;
    if (typeof number === 'number' && Number.isInteger(number) && number >= 400 && number <= 599)
      return number;
  }
  return (typeof type === 'string' && streamErrorStatuses[type]) || 500;
}

/** Error types the service (and OpenAI-compatible servers) use, by the status they come with. */
const streamErrorStatuses: Record<string, number> = {
  invalid_api_key: 401,
  authentication_error: 401,
  request_params_invalid: 400,
  invalid_request_error: 400,
  unsupported_content_type: 400,
  context_length_exceeded: 400,
  quota_exceeded: 402,
  insufficient_quota: 402,
  not_found: 404,
  model_not_found: 404,
  rate_limit_exceeded: 429,
  content_moderation: 451,
  service_unavailable: 503,
  overloaded: 503,
  gateway_timeout: 504,
};
