import { APIUserAbortError } from '../../transport/errors/api-user-abort-error.js';

/** The error an aborted run ends with: the transport's own `APIUserAbortError` when it threw one. */
export function toAbortError(signal: AbortSignal, error?: unknown): APIUserAbortError {
  if (APIUserAbortError.isInstance(error)) return error;
  const reason = signal.reason;
  const detail = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
  return new APIUserAbortError(detail ? `The run was aborted: ${detail}` : 'The run was aborted.', {
    cause: reason,
  });
}

/** Throws the run's abort error when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw toAbortError(signal);
}
