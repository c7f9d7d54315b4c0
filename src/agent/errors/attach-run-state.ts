import type { RunState } from '../run-state.js';
import { defineHidden } from './define-hidden.js';

/** Gives any error a non-enumerable `state`, so `agent.run(error.state)` resumes the failed run. */
export function attachRunState<E>(error: E, state: RunState): E {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) {
    defineHidden(error, 'state', state);
  }
  return error;
}
