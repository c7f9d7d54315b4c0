import { UserError } from '../core/errors.js';

/** A bad request to a chat endpoint; answered with `status` and `{ error: { message } }`. */
export class ChatRequestError extends UserError {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** More fields of the answer's `error` object (e.g. the pending tool call ids of a 409). */
  readonly details: Record<string, unknown> | undefined;

  constructor(options: { status: number; message: string; details?: Record<string, unknown> }) {
    super(options.message);
    this.status = options.status;
    this.details = options.details;
  }
}

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** The answer to a failed request: a `ChatRequestError` with its status, anything else as a 500. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ChatRequestError)
    return jsonResponse(error.status, { error: { ...error.details, message: error.message } });
  return jsonResponse(500, { error: { message: 'Internal error of the chat handler.' } });
}
