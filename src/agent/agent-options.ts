import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import type { HostedTool, Tool } from '../tools/tool.js';
import type { AgentHooks } from './agent-hooks.js';
import type { ModelSettings } from './model-settings.js';
import type { StopCondition } from './stop-conditions.js';

/** Options of `new Agent(...)`. */
export interface AgentOptions<TContext = unknown, TOutput = undefined> {
  /** The client the agent talks through (also handed to tools as `ctx.client`). */
  client: SvcClient;
  /** Model of every request, e.g. `svc-3.5-flash`. */
  model: string;
  /** System instructions sent first on every request (not stored in the run's messages). */
  instructions?: string;
  /** Function tools (run locally) and hosted tools (run by the service). */
  // biome-ignore lint/suspicious/noExplicitAny: tools with different argument types share one list.
  tools?: ReadonlyArray<Tool<any, any, TContext> | HostedTool>;
  /** Model requests allowed per `run`/`stream` call. @default 10 */
  maxTurns?: number;
  /** Request fields sent on every turn: temperature, top_p, max_tokens, stop, reasoning_format, audio, ... */
  modelSettings?: ModelSettings;
  /** A zod schema the final answer must match; the result's `output` is typed from it. */
  output?: z.ZodType<TOutput>;
  /** `json_schema.name` of structured output. @default 'output' */
  outputName?: string;
  /** Tool calls of one turn that run at the same time. @default 8 */
  toolConcurrency?: number;
  /** Cap on each `tool` message, in characters (a tool's own `maxOutputChars` wins); cut with a marker. @default 100_000 */
  maxToolOutputChars?: number;
  /** Stops after a tool turn when any condition holds; a guard against a call repeated 3 times always applies. */
  stopWhen?: StopCondition | StopCondition[];
  /** Lifecycle hooks. */
  hooks?: AgentHooks;
  /** For tests: a deterministic id generator for calls the service left without an id. */
  _internal?: { generateId?: () => string };
}

/** Options of one `agent.run` / `agent.stream`. */
export interface AgentRunOptions<TContext = unknown> {
  /** Aborts the run (HTTP stream and running tools). */
  signal?: AbortSignal;
  /** Handed to tools as `ctx.context`. */
  context?: TContext;
  /** Overrides the agent's `maxTurns` for this call. */
  maxTurns?: number;
  /** Call the service with `stream: true`. @default true for agent.stream, false for agent.run */
  stream?: boolean;
}
