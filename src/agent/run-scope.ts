import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentEvent } from './events.js';
import type { RunState } from './run-state.js';

/** What a tool running inside an agent's tool turn can reach of that run (agents used as tools need it). */
export interface RunScope {
  /** The running agent's name. */
  agentName: string;
  /** The run's state (usage of sub-agents is added to it). */
  state: RunState;
  /** The run's event sink. */
  emit: (event: AgentEvent) => void;
}

const storage = new AsyncLocalStorage<RunScope>();

/** Runs a tool turn inside `scope`, so `currentRunScope()` answers it from the tools' `execute`. */
export function runInScope<T>(scope: RunScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The run whose tool turn is executing the caller, if any. */
export function currentRunScope(): RunScope | undefined {
  return storage.getStore();
}
