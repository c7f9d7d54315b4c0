import { STATUS_CODES } from 'node:http';
import { APIError, type APIErrorInit } from './api-error.js';
import { AuthenticationError } from './authentication-error.js';
import { BadRequestError } from './bad-request-error.js';
import { ContentModerationError } from './content-moderation-error.js';
import { InternalServerError } from './internal-server-error.js';
import { NotFoundError } from './not-found-error.js';
import { PaymentRequiredError } from './payment-required-error.js';
import { RateLimitError } from './rate-limit-error.js';

/** Longest slice of a non-JSON body quoted in a message or kept in `body`. */
const maxSnippet = 300;

/**
 * Builds the typed {@link APIError} subclass for an error response: parses the service's
 * `{"error":{"message","type"}}` body, falls back to a readable snippet of any other body, and takes the
 * `requestId` from `X-Trace-Id`. `headers` may be a plain object or a `Headers`.
 */
export function createAPIError(
  status: number,
  bodyText: string,
  headers: Record<string, string | string[] | undefined> | Headers = {},
): APIError {
  const flatHeaders = flattenHeaders(headers);
  const { message, type, body } = describeBody(status, bodyText);
  const init: APIErrorInit = {
    status,
    type,
    requestId: flatHeaders['x-trace-id'],
    headers: flatHeaders,
    body,
  };
  const text = type === undefined ? `${status} ${message}` : `${status} ${type}: ${message}`;

  switch (status) {
    case 400:
      return new BadRequestError(text, init);
    case 401:
      return new AuthenticationError(text, init);
    case 402:
      return new PaymentRequiredError(text, init);
    case 404:
      return new NotFoundError(text, init);
    case 429:
      return new RateLimitError(text, init);
    case 451:
      return new ContentModerationError(text, init);
    default:
      return status >= 500 ? new InternalServerError(text, { ...init, status }) : new APIError(text, init);
  }
}

function describeBody(status: number, bodyText: string): { message: string; type?: string; body: unknown } {
  const statusText = STATUS_CODES[status] ?? 'Error';
  const trimmed = bodyText.trim();
  if (trimmed === '') return { message: `${statusText} (empty response body)`, body: undefined };

  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    // An HTML page from a proxy or a plain-text error: quote the start, whitespace collapsed.
    const snippet = trimmed.replace(/\s+/g, ' ').slice(0, maxSnippet);
    return { message: `${statusText}: ${snippet}`, body: snippet };
  }

  const error = isRecord(parsed) ? (isRecord(parsed.error) ? parsed.error : parsed) : undefined;
  const message =
    typeof error?.message === 'string' && error.message !== ''
      ? error.message
      : typeof parsed === 'string'
        ? parsed
        : `${statusText}: ${trimmed.slice(0, maxSnippet)}`;
  const type = typeof error?.type === 'string' && error.type !== '' ? error.type : undefined;
  return type === undefined ? { message, body: parsed } : { message, type, body: parsed };
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined> | Headers,
): Record<string, string> {
  const flat: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      flat[name] = value;
    });
    return flat;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
