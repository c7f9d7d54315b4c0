import type { ChatMessage } from '../api/types/chat.js';
import { createToolSet } from '../tools/create-tool-set.js';
import type { AnyTool, HostedTool, Tool, ToolSet } from '../tools/tool.js';
import { isPromiseLike } from '../tools/utils.js';

/** What a `tools` function is asked with, once per model request. */
export interface DynamicToolsArgs<C = unknown> {
  /** Index of the step about to run (0 for the first request). */
  step: number;
  /** The conversation so far. */
  messages: readonly ChatMessage[];
  /** The run's user context. */
  context: C;
}

// biome-ignore lint/suspicious/noExplicitAny: tools with different argument types share one list.
type ToolList<C> = ReadonlyArray<Tool<any, any, C> | HostedTool>;

/** `tools` as a function: enable, disable or replace tools per step (like the AI SDK's `prepareStep`). */
export type DynamicTools<C = unknown> = (args: DynamicToolsArgs<C>) => ToolList<C> | PromiseLike<ToolList<C>>;

/** How the loop gets the tool set of a step when `tools` is a function. */
export type ResolveToolSet = (args: DynamicToolsArgs) => ToolSet | PromiseLike<ToolSet>;

/**
 * Wraps a `tools` function: each step's list becomes a checked tool set (plus `extra`, the handoff tools),
 * built once per distinct array, so a function answering the same array every step costs one lookup.
 */
export function createToolSetResolver(tools: DynamicTools, extra: readonly AnyTool[]): ResolveToolSet {
  const built = new WeakMap<object, ToolSet>();
  const toSet = (list: readonly AnyTool[]): ToolSet => {
    let set = built.get(list);
    if (!set) {
      set = createToolSet([...list, ...extra]);
      built.set(list, set);
    }
    return set;
  };
  return (args) => {
    const list = tools(args as DynamicToolsArgs<never>);
    return isPromiseLike(list) ? Promise.resolve(list).then(toSet) : toSet(list as readonly AnyTool[]);
  };
}
