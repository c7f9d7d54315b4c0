import type { RunState } from '../run-state.js';

/** Gives any error a non-enumerable `state`, so `agent.run(error.state)` resumes the failed run. */
export function attachRunState<E>(error: E, state: RunState): E {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) {
    defineHidden(error, 'state', state);
  }
  return error;
}

/**
 * Sets a non-enumerable property, so `JSON.stringify(error)` and loggers skip it (a run state may be
 * large and holds the user's conversation) while `error.state` still reads it.
 */
export function defineHidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}
