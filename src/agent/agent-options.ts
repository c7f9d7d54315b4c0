import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import type { Channel } from '../api/types/request-options.js';
import type { HostedTool, Tool } from '../tools/tool.js';
import type { Agent } from './agent.js';
import type { AgentHooks } from './agent-hooks.js';
import type { AgentInstrumentation } from './agent-instrumentation.js';
import type { ContextWindowOptions } from './context/context-window-options.js';
import type { PriceTable } from './cost/price-table.js';
import type { Store } from './durable/store.js';
import type { DynamicTools } from './dynamic-tools.js';
import type { AgentEvent } from './events.js';
import type { Guardrail } from './guardrails/guardrail.js';
import type { Handoff } from './handoffs/handoff.js';
import type { ModelSettings } from './model-settings.js';
import type { RequestBudget } from './request-budget.js';
import type { StopCondition } from './stop-conditions.js';

/** Options of `new Agent(...)`. */
export interface AgentOptions<TContext = unknown, TOutput = undefined> {
  /** The client the agent talks through (also handed to tools as `ctx.client`). */
  client: SvcClient;
  /**
   * Model of every request, e.g. `svc-3.5-flash`; a list names fallbacks after it, as `fallbackModels` does.
   * @example model: ['svc-3.5-flash-2603', 'svc-3.7-flash']
   */
  model: string | readonly [string, ...string[]];
  /**
   * Models a turn is sent to, in order, when the service is overloaded on the agent's model (429 after the
   * client's retries, 5xx, timeout) and before the answer began; a model that cannot serve the request's
   * features (tools, json_schema, audio) is skipped. The step's `fallback` and a `model-fallback` event say so.
   */
  fallbackModels?: readonly string[];
  /**
   * Where requests go: `'plan'` is the plan channel (`/svc_plan/v1`, billed in credits), which serves
   * only `svc-router-v1`. @default 'default'
   * @example new Agent({ client, model: 'svc-router-v1', channel: 'plan' })
   */
  channel?: Channel;
  /** System instructions sent first on every request (not stored in the run's messages). */
  instructions?: string;
  /** Name in handoffs (`transfer_to_<name>`), events, stored run records and `result.lastAgent`. @default 'agent' */
  name?: string;
  /**
   * Function tools (run locally) and hosted tools (run by the service), or a function choosing them per
   * step from `{ step, messages, context }`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: tools with different argument types share one list.
  tools?: ReadonlyArray<Tool<any, any, TContext> | HostedTool> | DynamicTools<TContext>;
  /**
   * Knowledge bases (names or ids) the agent searches with a built-in `search_knowledge_base` tool, whose
   * results are reported as `source` events and in `result.sources`; a run can choose others
   * (`agent.run(input, { knowledgeBases })`). Needs a `tools` list, not a function.
   */
  knowledgeBases?: readonly string[];
  /** Agents the model may hand the conversation to, through a `transfer_to_<name>` tool each. */
  // biome-ignore lint/suspicious/noExplicitAny: agents of any context and output can take over.
  handoffs?: ReadonlyArray<Agent<any, any> | Handoff>;
  /** What this agent is for, in the `transfer_to_<name>` tool other agents see. */
  handoffDescription?: string;
  /**
   * Checks of the input, run before or alongside the first model request (tools wait for them); a tripwire
   * stops the run. Only the agent a run starts with checks its input; a resumed `RunState` is not checked again.
   */
  inputGuardrails?: readonly Guardrail<TContext>[];
  /**
   * Checks of the final answer (of the agent that answers last); a tripwire stops the run or, with
   * `repair`, asks the model once more.
   */
  outputGuardrails?: readonly Guardrail<TContext>[];
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
  /** Observes runs (tracing): e.g. `openTelemetry()` from `svc-agents/telemetry`. */
  instrumentation?: AgentInstrumentation;
  /** Prices per model (per million tokens, per image, per audio second): fills `usage.cost` of steps and runs. */
  prices?: PriceTable;
  /** Keeps every request under the model's context window (token counting, truncate / summarize / custom). */
  contextWindow?: ContextWindowOptions;
  /** Keeps every run (checkpointed after each model turn and tool call) and sessions; see `svc-agents/stores`. */
  store?: Store;
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
  /**
   * The run's id (`result.runId`, `ctx.runId`; its key in the store). With a store, `agent.run(state,
   * { runId })` / `agent.stream(...)` of a run stored as paused for approvals continues that record with
   * the decisions taken in `state`. @default a random UUID
   */
  runId?: string;
  /** A session id: its stored history is prepended and the run's new items appended (needs `store`). */
  session?: string;
  /** Called with every event of the run, also for `agent.run` (which has no stream to read). */
  onEvent?: (event: AgentEvent) => void;
  /** The store of this run instead of the agent's (a queue worker runs shared agents on its store). */
  store?: Store;
  /**
   * The knowledge bases (names or ids) this run searches instead of the agent's `knowledgeBases`, e.g.
   * the user's or the tenant's; adds the `search_knowledge_base` tool when the agent has none.
   */
  knowledgeBases?: readonly string[];
  /**
   * Budgets shared with other runs (a queue worker's fleet-wide rate limits): each model request waits for it,
   * reports rate limits and settles its real usage. See `startWorker({ limits })`.
   */
  requestBudget?: RequestBudget;
}

/** Options of `agent.resume`, `agent.approve` and `agent.reject`. */
export type AgentResumeOptions<TContext = unknown> = Omit<AgentRunOptions<TContext>, 'runId' | 'session'>;
