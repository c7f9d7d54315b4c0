import { STATUS_CODES } from 'node:http';
import { type Redact, redactValue } from './redact-secret.js';

// Every error svc-agents throws, for the transport layer and the families the other layers' errors join
// (as openai-node's `core/error.ts`): catch a family to handle all its members, or one class for one case.
//   UserError             the caller's mistakes: bad options, invalid requests, broken tool definitions
//   ModelBehaviorError    the model's mistakes: bad tool arguments, unknown tools, invalid final output
//   APIError              the service's errors, by status (BadRequestError, RateLimitError, ...) or no
//                         usable answer (APIConnectionError, APITimeoutError, APIUserAbortError)
//   RuntimeConditionError conditions of the running system: stores or queues unreachable, timeouts,
//                         limits reached, tools that failed or wait for a human

const marker = Symbol.for('svc-agents.error');

/** Base class of every error svc-agents throws; `SvcError.isInstance` holds across duplicated bundles. */
export class SvcError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read with `marker in error` by isInstance
  private readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /**
   * True when `error` is an svc-agents error of this class (`SvcError.isInstance` for any of them,
   * `RateLimitError.isInstance` for that subclass), even from another copy of the package.
   */
  static isInstance<T extends SvcError>(this: { prototype: T; name: string }, error: unknown): error is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class the check was called on
    return isInstanceOfClass(error, this);
  }

  /** Plain, key-free JSON so errors log cleanly with `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') json[key] = value;
    }
    return json;
  }
}

/** Marked svc-agents error whose prototype chain holds `cls`, by identity or, across copies, by class name. */
function isInstanceOfClass(error: unknown, cls: { prototype: unknown; name: string }): boolean {
  if (typeof error !== 'object' || error === null || !(marker in error)) return false;
  for (let proto: unknown = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if (
      proto === cls.prototype ||
      (proto as { constructor?: { name?: string } }).constructor?.name === cls.name
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The caller's mistake (options, a request, a tool definition, a missing optional package): fixing the
 * calling code fixes it, so it is never retried.
 */
export class UserError extends SvcError {}

/**
 * The model's mistake (arguments that break a tool's schema, an unknown tool, an answer that breaks the
 * output schema): inside a run it is shown to the model, which can correct itself.
 */
export class ModelBehaviorError extends SvcError {}

/**
 * A condition of the running system rather than anyone's mistake: a store or queue that cannot be reached,
 * a tool that failed or timed out, a limit reached. Check the subclass (and `transient` where it has one).
 */
export class RuntimeConditionError extends SvcError {}

/**
 * Bad input: an option or argument is missing or breaks a rule (no API key, a queue name that is not a
 * string), raised before any request. The one shape of the caller's input mistakes: `{ field, rule }`, the
 * message `<field>: <rule>`; `AgentOptionsError` is one.
 */
export class ConfigurationError extends UserError {
  /** The option or argument at fault, e.g. `apiKey` or `decisions[0]`. */
  readonly field: string;
  /** The rule it breaks, e.g. `must be a positive integer, got 0`. */
  readonly rule: string;

  constructor(options: { field: string; rule: string; cause?: unknown }) {
    super(`${options.field}: ${options.rule}`, { cause: options.cause });
    this.field = options.field;
    this.rule = options.rule;
  }

  /** The option at fault: the same as `field` (its name before `field` existed). */
  get option(): string {
    return this.field;
  }
}

/**
 * A feature needs an optional package that is not installed (`ioredis`, `pg`, `bullmq`,
 * `@modelcontextprotocol/sdk`, `@opentelemetry/api`); the message names it and the command to install it.
 */
export class MissingDependencyError extends UserError {
  /** The package to install, e.g. `ioredis`. */
  readonly packageName: string;
  /** What needed it, e.g. `redisStore`. */
  readonly feature: string;
  /** The command that installs it, e.g. `npm install ioredis`. */
  readonly installCommand: string;

  constructor(options: { packageName: string; feature: string; cause?: unknown }) {
    const installCommand = `npm install ${options.packageName}`;
    super(`${options.feature} needs the optional package "${options.packageName}": ${installCommand}`, {
      cause: options.cause,
    });
    this.packageName = options.packageName;
    this.feature = options.feature;
    this.installCommand = installCommand;
  }
}

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

// The classes below differ only by status: `createAPIError` picks one from the response.

/** The request was rejected as invalid (400, e.g. `request_params_invalid`, `unsupported_content_type`). */
export class BadRequestError extends APIError {
  override readonly status = 400 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 400 });
  }
}

/** The API key is missing, wrong or revoked (401, `invalid_api_key`). */
export class AuthenticationError extends APIError {
  override readonly status = 401 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 401 });
  }
}

/** The account balance or plan quota is exhausted (402, e.g. `quota_exceeded`). */
export class PaymentRequiredError extends APIError {
  override readonly status = 402 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 402 });
  }
}

/** The path or the resource (file, vector store, model) does not exist (404). */
export class NotFoundError extends APIError {
  override readonly status = 404 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 404 });
  }
}

/** The account's rate limit was hit (429); retried automatically with backoff. */
export class RateLimitError extends APIError {
  override readonly status = 429 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 429 });
  }
}

/** Content moderation refused the request or the answer (451); never retried. */
export class ContentModerationError extends APIError {
  override readonly status = 451 as const;

  constructor(message: string, init: Omit<APIErrorInit, 'status'> = {}) {
    super(message, { ...init, status: 451 });
  }
}

/** The service failed or is overloaded (any status >= 500, e.g. 500, 503, 504); retried automatically. */
export class InternalServerError extends APIError {
  declare readonly status: number;

  constructor(message: string, init: APIErrorInit & { status: number }) {
    super(message, init);
  }
}

// No usable response at all.

/** No complete response: DNS, refused or reset connection, or a stream cut mid-way. Retried before the first byte. */
export class APIConnectionError extends APIError {
  constructor(message = 'Connection error.', options: { cause?: unknown } = {}) {
    super(message, options);
  }

  override get isRetryable(): boolean {
    return true;
  }
}

/** An attempt took longer than the `timeout` option (ms per attempt); retried like a connection error. */
export class APITimeoutError extends APIConnectionError {
  /** The per-attempt limit that was exceeded, in ms. */
  readonly timeout: number | undefined;

  constructor(timeout?: number, options: { cause?: unknown } = {}) {
    super(timeout === undefined ? 'Request timed out.' : `Request timed out after ${timeout} ms.`, options);
    this.timeout = timeout;
  }
}

/** The caller's `signal` (or `abort()`) cancelled the request, its retry wait or its stream; never retried. */
export class APIUserAbortError extends APIError {
  constructor(message = 'Request was aborted.', options: { cause?: unknown } = {}) {
    super(message, options);
  }

  override get isRetryable(): boolean {
    return false;
  }
}

/**
 * A 2xx answer that could not be read: a body that is not JSON, a stream event that is not JSON, or a
 * streamed request answered with something other than an event stream (a proxy's HTML page, a JSON
 * body). Nothing local ran on it, so it is retryable like a connection error.
 */
export class InvalidResponseError extends APIError {
  constructor(message: string, init: APIErrorInit = {}) {
    super(message, { type: 'invalid_response', ...init });
  }

  override get isRetryable(): boolean {
    return true;
  }
}

/** Longest slice of a non-JSON body quoted in a message or kept in `body`. */
const maxSnippet = 300;

/**
 * Builds the typed {@link APIError} subclass for an error response: parses the service's
 * `{"error":{"message","type"}}` body, falls back to a readable snippet of any other body, and takes the
 * `requestId` from `X-Trace-Id`. `headers` may be a plain object or a `Headers`. `redact` masks the key
 * in every field taken from the response: header values, and the body after it is parsed (so a
 * JSON-escaped key is caught) and before it is cut.
 */
export function createAPIError(
  status: number,
  bodyText: string,
  headers: Record<string, string | string[] | undefined> | Headers = {},
  redact: Redact = (text) => text,
): APIError {
  const flatHeaders = flattenHeaders(headers);
  for (const name of Object.keys(flatHeaders)) flatHeaders[name] = redact(flatHeaders[name]!);
  const { message, type, body } = describeBody(status, bodyText, redact);
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

function describeBody(
  status: number,
  bodyText: string,
  redact: Redact,
): { message: string; type?: string; body: unknown } {
  const statusText = STATUS_CODES[status] ?? 'Error';
  const trimmed = bodyText.trim();
  if (trimmed === '') return { message: `${statusText} (empty response body)`, body: undefined };

  let parsed: unknown;
  try {
    parsed = redactValue(JSON.parse(trimmed), redact);
  } catch {
    // An HTML page from a proxy or a plain-text error: quote the start, whitespace collapsed.
    const snippet = redact(trimmed).replace(/\s+/g, ' ').slice(0, maxSnippet);
    return { message: `${statusText}: ${snippet}`, body: snippet };
  }

  const error = isRecord(parsed) ? (isRecord(parsed.error) ? parsed.error : parsed) : undefined;
  const message =
    typeof error?.message === 'string' && error.message !== ''
      ? error.message
      : typeof parsed === 'string'
        ? parsed
        : `${statusText}: ${redact(trimmed).slice(0, maxSnippet)}`;
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

/** A user's module (`--agent`, `--agents`, `--tools`) could not be imported: the path and the reason. */
export class ModuleLoadError extends UserError {
  /** The module as given, e.g. `./agents.ts`. */
  readonly specifier: string;

  constructor(options: { specifier: string; feature: string; cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`${options.feature}: ${options.specifier} could not be loaded (${reason})`, {
      cause: options.cause,
    });
    this.specifier = options.specifier;
  }
}
