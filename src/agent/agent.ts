import type { z } from 'zod';
import type { ChatMessage } from '../api/types/chat.js';
import { loadOnce } from '../core/load-module.js';
import type { Tool } from '../tools/tool.js';
import { type AgentToolOptions, agentAsTool } from './agent-as-tool.js';
import { AGENT_CORE, AgentCore } from './agent-core.js';
import type { AgentOptions, AgentResumeOptions, AgentRunOptions } from './agent-options.js';
import { AgentStream } from './agent-stream.js';
import type { Store } from './durable/store.js';
import { storedRunIdOf } from './durable/stored-run-ids.js';
import type { DurableHooks } from './durable/stored-run-writer.js';
import { AgentOptionsError } from './errors.js';
import type { AgentEvent } from './events.js';
import { SEARCH_KNOWLEDGE_BASE } from './loop/knowledge-base-search.js';
import {
  checkPositiveInteger,
  type NormalizedAgentOptions,
  normalizeAgentOptions,
} from './normalize-agent-options.js';
import type { RunResult } from './run-result.js';
import { RunState, type RunStateOwner } from './run-state.js';

// The run loop and all that only a run needs load on the first run, not when svc-agents is imported:
// every module costs cold-import time, and a run awaits the network anyway.
const loadRunAgent = loadOnce(() => import('./loop/run-agent.js'));
const loadRunWithStore = loadOnce(() => import('./durable/run-with-store.js'));
const loadRecordDecision = loadOnce(() => import('./durable/record-decision.js'));

/** What a run is driven with: an `AgentStream`'s controls, or a plain run's optional `onEvent` and signal. */
type RunControls = { emit?: ((event: AgentEvent) => void) | undefined; signal: AbortSignal | undefined };

/** What a run starts from: a user message, a conversation to continue, or a saved state to resume. */
export type AgentInput = string | readonly ChatMessage[] | RunState;

/**
 * A tool-calling agent: talks to the model, runs the tools it asks for, feeds the results back by
 * `tool_call_id`, and streams everything as it happens.
 * @example
 * const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [weather] });
 * const { text } = await agent.run('Weather in Paris?');
 */
export class Agent<TContext = unknown, TOutput = undefined> implements RunStateOwner {
  readonly #options: NormalizedAgentOptions;
  readonly #core: AgentCore;
  readonly #store: Store | undefined;

  constructor(options: AgentOptions<TContext, TOutput>) {
    this.#options = normalizeAgentOptions(options);
    this.#store = options.store;
    this.#core = new AgentCore(this.#options, options.client, options.output as z.ZodType | undefined);
  }

  /** What a run needs of this agent (how the agents that hand off to it reach it); not for callers. */
  get [AGENT_CORE](): AgentCore {
    return this.#core;
  }

  /** The agent's name (handoff tools are `transfer_to_<name>`). */
  get name(): string {
    return this.#options.name;
  }

  /** What the agent is for, as other agents' handoff tools describe it. */
  get handoffDescription(): string | undefined {
    return this.#options.handoffDescription;
  }

  /**
   * This agent as a tool of another agent: its run's events are forwarded (as `sub-agent` events), its
   * usage is added to the parent's, and its answer (structured output as JSON) is the tool result.
   */
  asTool(options: AgentToolOptions<TContext>): Tool<{ input: string }, string, TContext> {
    return agentAsTool(this, options);
  }

  /** The model every request uses. */
  get model(): string {
    return this.#options.model;
  }

  /** True when the agent has a local function tool of this name (used by `RunState.fromJSON`). */
  hasFunctionTool(name: string): boolean {
    // A `tools` function may answer any tool at resume time: it is asked again then.
    if (this.#options.resolveTools !== undefined || this.#options.toolSet.functions.has(name)) return true;
    // A run's own `knowledgeBases` bring the search tool; a resume without them tells the model it is gone.
    if (name === SEARCH_KNOWLEDGE_BASE) return true;
    // A run saved after a handoff waits on the tools of the agent that took over.
    return this.#options.handoffs.some((target) => target.agent.hasFunctionTool(name));
  }

  /** Runs to the end (or to a pause for approvals); by default without streaming the HTTP answers. */
  run(input: AgentInput, options: AgentRunOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    // Nobody can observe a run()'s events or abort it except through `options.signal`: no AgentStream,
    // no AbortController and no event objects, just the loop (with no signal when the caller gave none).
    const controls = { emit: options.onEvent, signal: options.signal };
    return this.#execute(input, options, options.stream ?? false, controls);
  }

  /** Continues a run kept in the agent's `store` from its last checkpoint (a completed run is answered as stored). */
  resume(runId: string, options: AgentResumeOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    const controls = { emit: options.onEvent, signal: options.signal };
    return this.#execute(new StoredRunRef(runId), options, options.stream ?? false, controls);
  }

  /** Records in the store that a paused call may run, then resumes the run. */
  async approve(
    runId: string,
    toolCallId: string,
    options: AgentResumeOptions<TContext> = {},
  ): Promise<RunResult<TOutput>> {
    const { recordDecision } = await loadRecordDecision();
    await recordDecision(this.#requireStore('approve'), runId, toolCallId, { approved: true });
    return this.resume(runId, options);
  }

  /** Records in the store that a paused call is refused (the model is told, with `reason`), then resumes. */
  async reject(
    runId: string,
    toolCallId: string,
    reason?: string,
    options: AgentResumeOptions<TContext> = {},
  ): Promise<RunResult<TOutput>> {
    const { recordDecision } = await loadRecordDecision();
    await recordDecision(this.#requireStore('reject'), runId, toolCallId, { approved: false, reason });
    return this.resume(runId, options);
  }

  #requireStore(method: string): Store {
    if (!this.#store) throw new AgentOptionsError({ field: 'store', rule: `required by agent.${method}` });
    return this.#store;
  }

  /** Runs and streams events as they happen; see `AgentStream`. */
  stream(input: AgentInput, options: AgentRunOptions<TContext> = {}): AgentStream<TOutput> {
    const stream = options.stream ?? true;
    return new AgentStream<TOutput>((controls) => this.#execute(input, options, stream, controls), {
      signal: options.signal,
    });
  }

  // Checked inside the run, so a bad option rejects `result` (and yields `error`) like any failure.
  async #execute(
    input: AgentInput | StoredRunRef,
    options: AgentRunOptions<TContext>,
    stream: boolean,
    { emit, signal }: RunControls,
  ): Promise<RunResult<TOutput>> {
    const core = this.#core;
    const maxTurns = options.maxTurns ?? this.#options.maxTurns;
    checkPositiveInteger('maxTurns', maxTurns);
    // Built before the run is recorded: a schema JSON Schema cannot express fails the call, not the run.
    core.output();
    const { runAgent } = await loadRunAgent();
    // A failed stored run's `error.state` names its run: resuming it continues that record.
    const givenRunId =
      input instanceof StoredRunRef
        ? input.runId
        : (options.runId ?? (input instanceof RunState ? storedRunIdOf(input) : undefined));
    const runId = givenRunId ?? crypto.randomUUID();
    const toolSet = core.toolSetFor(options.knowledgeBases);
    // Before anything is recorded or requested: a knowledge base that does not exist fails the call.
    await core.findKnowledgeBases(options.knowledgeBases, signal);
    const resumed = input instanceof RunState || input instanceof StoredRunRef;
    // The run's options, unpacked here once; a durable run hands in the state it prepared and its hooks.
    const loop = (state: RunState, durable: DurableHooks | undefined) =>
      runAgent({
        agent: core,
        state,
        toolSet,
        maxTurns,
        stream,
        context: options.context,
        signal,
        emit,
        runId,
        resumed,
        requestBudget: options.requestBudget,
        durable,
      });
    const store = options.store ?? this.#store;
    if (store === undefined) {
      if (input instanceof StoredRunRef) this.#requireStore('resume');
      if (options.session !== undefined) {
        throw new AgentOptionsError({ field: 'session', rule: 'needs the agent option store' });
      }
      return loop(toRunState(input as AgentInput), undefined) as Promise<RunResult<TOutput>>;
    }
    const { runWithStore } = await loadRunWithStore();
    return (await runWithStore({
      store,
      agentName: this.#options.name,
      runId,
      owner: this,
      input: input instanceof StoredRunRef ? undefined : () => toRunState(input),
      paused: input instanceof RunState && givenRunId !== undefined ? input.clone() : undefined,
      session: options.session,
      fresh: !(input instanceof RunState),
      loop,
    })) as RunResult<TOutput>;
  }
}

/** Marks `agent.resume(runId)`'s input apart from a user's `AgentInput`: a run to load from the store. */
class StoredRunRef {
  readonly runId: string;

  constructor(runId: string) {
    this.runId = runId;
  }
}

function toRunState(input: AgentInput): RunState {
  if (input instanceof RunState) return input.clone();
  if (typeof input === 'string') return new RunState({ messages: [{ role: 'user', content: input }] });
  if (Array.isArray(input)) return new RunState({ messages: input.map((message) => ({ ...message })) });
  throw new AgentOptionsError({ field: 'input', rule: 'must be a string, a message array or a RunState' });
}
