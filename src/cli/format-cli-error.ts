import { createRedactor } from '../core/redact-secret.js';
import { CliUsageError } from './errors.js';

/** What the CLI prints for a failure, and the exit code it returns. */
export interface FormattedCliError {
  /** One line, no stack, no API key. */
  line: string;
  exitCode: number;
  /** The same facts as `line`, for `--json`. */
  json: { error: { name: string; message: string; status?: number; type?: string; requestId?: string } };
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  type?: unknown;
  requestId?: unknown;
  issues?: unknown;
  code?: unknown;
}

const MAX_LENGTH = 400;

function oneLine(text: string): string {
  const flat = text
    .split(/\r?\n/)
    .map((part) => part.trim())
    .filter(Boolean)
    .join('; ');
  return flat.length > MAX_LENGTH ? `${flat.slice(0, MAX_LENGTH - 1)}…` : flat;
}

function describe(error: ErrorLike, env: NodeJS.ProcessEnv): string {
  const name = typeof error.name === 'string' ? error.name : 'Error';
  const rawMessage = typeof error.message === 'string' && error.message ? error.message : String(error);
  const status = typeof error.status === 'number' ? error.status : undefined;
  const type = typeof error.type === 'string' && error.type ? error.type : undefined;
  const code = `${status ?? ''}${status && type ? ' ' : ''}${type ?? ''}`;
  // API errors already start their message with "<status> <type>: "; it is said once, in brackets, below.
  const message = code && rawMessage.startsWith(`${code}: `) ? rawMessage.slice(code.length + 2) : rawMessage;

  if (name === 'RequestValidationError' && Array.isArray(error.issues) && error.issues.length > 0) {
    const issues = (error.issues as Array<{ path?: unknown; message?: unknown }>).map(
      (issue) => `${String(issue.path ?? '')}: ${String(issue.message ?? '')}`,
    );
    return `invalid request: ${issues.join('; ')}`;
  }
  switch (status) {
    case 401:
      return `the service rejected the API key (${code}); check SVC_API_KEY`;
    case 402:
      return `the account cannot pay for this request (${code}): ${message}`;
    case 404:
      return `not found (${code}): ${message}`;
    case 429:
      return `rate limited by the service (${code}): ${message}; try again later`;
    case 451:
      return `the request or the answer was blocked by content moderation (${code}): ${message}`;
    case undefined:
      break;
    default:
      if (status >= 500) return `the service failed (${code}): ${message}; try again later`;
      return `the service refused the request (${code}): ${message}`;
  }
  if (name === 'APIConnectionError') {
    const where = env.SVC_BASE_URL ? ` at ${env.SVC_BASE_URL}` : '';
    return `cannot reach the service${where}: ${message}; check SVC_BASE_URL and your network`;
  }
  if (name === 'APITimeoutError') return `the request timed out: ${message}`;
  if (error.code === 'ENOENT' && typeof (error as { path?: unknown }).path === 'string') {
    return `no such file: ${(error as { path: string }).path}`;
  }
  return message;
}

/** Turns any thrown value into one printable line and an exit code; the API key is masked if it leaked in. */
export function formatCliError(error: unknown, env: NodeJS.ProcessEnv = process.env): FormattedCliError {
  const like: ErrorLike =
    typeof error === 'object' && error !== null ? (error as ErrorLike) : { message: String(error) };
  // The same redaction as the transport's, again here: an error may come from elsewhere (a tool, a store).
  const redact = createRedactor(env.SVC_API_KEY ?? '');
  let text = redact(oneLine(describe(like, env)));
  const requestId = typeof like.requestId === 'string' && like.requestId ? redact(like.requestId) : undefined;
  const parseArgsError = typeof like.code === 'string' && like.code.startsWith('ERR_PARSE_ARGS');
  // node:util parseArgs explains at length how to pass '--'; the first sentence says what is wrong.
  if (parseArgsError) text = text.split('. ')[0] ?? text;
  const usage = error instanceof CliUsageError || parseArgsError;
  const aborted = like.name === 'APIUserAbortError' || like.name === 'AbortError';
  let line = `error: ${text}`;
  if (usage) {
    const command = error instanceof CliUsageError && error.command ? `${error.command} ` : '';
    line += ` (see: svc-agents ${command}--help)`;
  }
  if (requestId) line += ` [trace id ${requestId}]`;
  const json: FormattedCliError['json'] = {
    error: { name: typeof like.name === 'string' ? like.name : 'Error', message: text },
  };
  if (typeof like.status === 'number') json.error.status = like.status;
  if (typeof like.type === 'string') json.error.type = like.type;
  if (requestId) json.error.requestId = requestId;
  return { line, exitCode: usage ? 2 : aborted ? 130 : 1, json };
}
