import { AsyncLocalStorage } from 'node:async_hooks';
import type { ToolSet } from '../../tools/tool.js';
import type { AgentEvent } from '../events.js';
import type { RunState } from '../run-state.js';

/** What a tool running inside an agent's tool turn can reach of that run (agents used as tools need it). */
export interface RunScope {
  /** The running agent's name. */
  agentName: string;
  /** The run's state (usage of sub-agents is added to it, a paused sub-run kept on its pending call). */
  state: RunState;
  /** The run's event sink; absent when nobody observes the run. */
  emit: ((event: AgentEvent) => void) | undefined;
}

// Created on first use: on Node 20 a live AsyncLocalStorage turns on promise hooks for the whole process,
// a cost no run without agent tools should pay.
let storage: AsyncLocalStorage<RunScope> | undefined;
const scopedTools = new WeakSet<object>();
const needsScope = new WeakMap<ToolSet, boolean>();

/** Marks a tool that reads `currentRunScope()` (an agent used as a tool). */
export function markScopedTool<T extends object>(tool: T): T {
  scopedTools.add(tool);
  return tool;
}

/** Whether any tool of the set reads the run scope (answered once per tool set). */
export function toolSetNeedsScope(toolSet: ToolSet): boolean {
  let needs = needsScope.get(toolSet);
  if (needs === undefined) {
    needs = [...toolSet.functions.values()].some((tool) => scopedTools.has(tool));
    needsScope.set(toolSet, needs);
  }
  return needs;
}

/** Runs a tool turn inside `scope`, so `currentRunScope()` answers it from the tools' `execute`. */
export function runInScope<T>(scope: RunScope, fn: () => T): T {
  storage ??= new AsyncLocalStorage<RunScope>();
  return storage.run(scope, fn);
}

/** The run whose tool turn is executing the caller, if any. */
export function currentRunScope(): RunScope | undefined {
  return storage?.getStore();
}
