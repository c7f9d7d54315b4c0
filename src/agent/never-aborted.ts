// `agent.run()` without a signal can never be aborted: one shared signal stands in for it, so the run
// needs no AbortController of its own (listeners on it come and go through addAbortListener).
const controller = new AbortController();

/** A signal that never aborts. */
export const neverAborted: AbortSignal = controller.signal;
