import type { AgentEvent } from './events.js';

/**
 * The `emit` of a run whose events nobody can observe (`agent.run()`): the loop compares against it to
 * skip building events at all.
 */
export const ignoreEvents = (_event: AgentEvent): void => {};
