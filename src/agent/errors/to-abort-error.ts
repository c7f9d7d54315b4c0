import { APIUserAbortError } from '../../transport/errors.js';

/**
 * The signal of a run started without one (`agent.run()` with no `signal`): it never aborts. One shared
 * signal stands in for it, so the run needs no AbortController of its own, and model requests made with
 * it carry no signal at all (the transport then wires no abort listener per request).
 */
export const neverAborted: AbortSignal = new AbortController().signal;

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
