import { APIUserAbortError } from '../../core/errors.js';

/**
 * A signal that never aborts, for the public fields that promise one (a guardrail's `signal`, an approval
 * policy's `ctx.signal`, the instrumentation's `signal`) when the caller gave the run none. The run itself
 * carries `undefined` then: its requests and tools wire no abort listener.
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
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw toAbortError(signal);
}
