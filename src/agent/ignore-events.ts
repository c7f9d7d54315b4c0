import type { AgentEvent } from './events.js';

/**
 * The `emit` of a run whose events nobody can observe (`agent.run()`): the loop compares against it to
 * skip building events at all.
 */
export const ignoreEvents = (_event: AgentEvent): void => {};

// `agent.run()` without a signal can never be aborted: one shared signal stands in for it, so the run
// needs no AbortController of its own (listeners on it come and go through addAbortListener).
const neverAbortedController = new AbortController();

/** A signal that never aborts. */
export const neverAborted: AbortSignal = neverAbortedController.signal;
