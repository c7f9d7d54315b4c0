import type { z } from 'zod';
import type { planModelId } from '../api/schemas/model-ids.js';
import type { SvcClient } from '../api/svc-client.js';
import type { ChatCompletionCreateParams, ChatMessage } from '../api/types/chat.js';
import type { Channel } from '../api/types/request-options.js';
import type { Tool, ToolSet } from '../tools/tool.js';
import { loadOnce } from '../transport/load-module.js';
import { type AgentToolOptions, agentAsTool } from './agent-as-tool.js';
import { instrumentRun } from './agent-instrumentation.js';
import { registerAgentInternals } from './agent-internals.js';
import type { AgentOptions, AgentResumeOptions, AgentRunOptions } from './agent-options.js';
import { AgentStream } from './agent-stream.js';
import type { CreateChatCompletion } from './call-model.js';
import type { DurableHooks } from './durable/durable-run.js';
import type { Store } from './durable/store.js';
import { StoredRunRef } from './durable/stored-run-ref.js';
import { AgentOptionsError } from './errors/agent-options-error.js';
import { MaxTurnsExceededError } from './errors/max-turns-exceeded-error.js';
import { neverAborted } from './errors/to-abort-error.js';
import type { AgentEvent } from './events.js';
import {
  checkKnowledgeBases,
  SEARCH_KNOWLEDGE_BASE,
  withKnowledgeBaseSearch,
} from './knowledge-base-search.js';
import {
  checkPositiveInteger,
  type NormalizedAgentOptions,
  normalizeAgentOptions,
} from './normalize-agent-options.js';
import type { RunAgentOptions } from './run-agent.js';
import type { RunResult } from './run-result.js';
import { RunState, type RunStateOwner } from './run-state.js';
import { buildOutputRequest } from './structured-output.js';

// The run loop and all that only a run needs load on the first run, not when svc-agents is imported:
// every module costs cold-import time, and a run awaits the network anyway.
const loadRunAgent = loadOnce(() => import('./run-agent.js'));
const loadRunComposed = loadOnce(() => import('./run-composed.js'));
const loadContextManager = loadOnce(() => import('./context/context-manager.js'));
const loadDurable = loadOnce(() => import('./durable/execute-durably.js'));
const loadRequestBudget = loadOnce(() => import('./request-budget.js'));

/** What a run is driven with: an `AgentStream`'s controls, or a plain run's optional `onEvent` and signal. */
type RunControls = { emit?: ((event: AgentEvent) => void) | undefined; signal: AbortSignal };

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
  readonly #client: SvcClient;
  readonly #output: z.ZodType<TOutput> | undefined;
  readonly #create: CreateChatCompletion;
  #contextManager: import('./context/context-manager.js').ContextManager | undefined;
  #outputSpec: RunAgentOptions['output'];
  readonly #store: Store | undefined;

  constructor(options: AgentOptions<TContext, TOutput>) {
    this.#options = normalizeAgentOptions(options);
    this.#store = options.store;
    const client = options.client;
    this.#client = client;
    this.#output = options.output;
    this.#create = createFor(client, this.#options.channel);
    registerAgentInternals(this, {
      options: this.#options,
      client,
      create: this.#create,
      output: () => this.#runOutput(),
      wrapCreate: async (create, state, emit) =>
        this.#options.contextWindow ? this.#withContextWindow(state, emit, create) : create,
    });
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
    // no AbortController and no event objects, just the loop.
    const controls = { emit: options.onEvent, signal: options.signal ?? neverAborted };
    return this.#execute(input, options, options.stream ?? false, controls);
  }

  /** Continues a run kept in the agent's `store` from its last checkpoint (a completed run is answered as stored). */
  resume(runId: string, options: AgentResumeOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    const controls = { emit: options.onEvent, signal: options.signal ?? neverAborted };
    return this.#execute(new StoredRunRef(runId), options, options.stream ?? false, controls);
  }

  /** Records in the store that a paused call may run, then resumes the run. */
  async approve(
    runId: string,
    toolCallId: string,
    options: AgentResumeOptions<TContext> = {},
  ): Promise<RunResult<TOutput>> {
    const { recordDecision } = await loadDurable();
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
    const { recordDecision } = await loadDurable();
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
    const agent = this.#options;
    const client = this.#client;
    const maxTurns = options.maxTurns ?? agent.maxTurns;
    checkPositiveInteger('maxTurns', maxTurns);
    const output = this.#runOutput();
    const { runAgent } = await loadRunAgent();
    const toolSet = this.#runToolSet(options.knowledgeBases);
    const runId = input instanceof StoredRunRef ? input.runId : (options.runId ?? crypto.randomUUID());
    const resumed = input instanceof RunState || input instanceof StoredRunRef;
    // A shared budget sits nearest the network: each request (a fallback model's too) waits for its own model.
    const budget = options.requestBudget;
    const { withRequestBudget } = budget ? await loadRequestBudget() : { withRequestBudget: undefined };
    const limit = (create: CreateChatCompletion) =>
      budget && withRequestBudget ? withRequestBudget(create, budget) : create;
    const loop = async (state: RunState, durable?: DurableHooks): Promise<RunResult<TOutput>> => {
      const base = limit(this.#create);
      // Without instrumentation or context management the run takes the plain path: no wrappers.
      const observed = agent.instrumentation
        ? await instrumentRun(agent.instrumentation, agent, {
            state,
            resumed,
            signal,
            emit,
            create: base,
          })
        : undefined;
      const runEmit = observed?.emit ?? emit;
      let create = observed?.create ?? base;
      if (agent.contextWindow) create = await this.#withContextWindow(state, runEmit, create);
      const run: RunAgentOptions = {
        agent,
        state,
        toolSet,
        output,
        maxTurns,
        stream,
        context: options.context,
        client,
        create,
        signal,
        emit: runEmit,
        runId,
        durable,
      };
      try {
        let result: RunResult<unknown>;
        if (agent.handoffs.length + agent.inputGuardrails.length + agent.outputGuardrails.length > 0) {
          const { runComposed } = await loadRunComposed();
          const observe = observed?.wrapModelCall;
          result = await runComposed(run, {
            agent: this,
            resumed,
            // Every agent taking over goes through the same budget and instrumentation.
            wrapModelCall:
              budget || observe ? (next) => (observe ? observe(limit(next)) : limit(next)) : undefined,
          });
        } else {
          result = await runAgent(run);
          result.lastAgent = agent.name;
        }
        observed?.end({ result });
        return result as RunResult<TOutput>;
      } catch (error) {
        if (error instanceof MaxTurnsExceededError) error.result.lastAgent ??= agent.name;
        observed?.end({ error });
        throw error;
      }
    };
    const store = options.store ?? this.#store;
    if (store === undefined) {
      if (input instanceof StoredRunRef) this.#requireStore('resume');
      if (options.session !== undefined) {
        throw new AgentOptionsError({ field: 'session', rule: 'needs the agent option store' });
      }
      return loop(toRunState(input as AgentInput));
    }
    if (input instanceof RunState && options.runId !== undefined) {
      // A paused stored run continued with the caller's decisions: the same record, not a second one.
      const { continuePausedRun } = await import('./durable/continue-paused-run.js');
      const continued = await continuePausedRun({ store, runId, state: input.clone(), loop });
      if (continued) return continued as RunResult<TOutput>;
    }
    const { executeDurably } = await loadDurable();
    return (await executeDurably({
      store,
      agentName: agent.name,
      runId,
      owner: this,
      input: input instanceof StoredRunRef ? undefined : () => toRunState(input),
      session: options.session,
      fresh: !(input instanceof RunState),
      loop,
    })) as RunResult<TOutput>;
  }

  // A run's own knowledge bases give it its own search tool; the agent's tool set is left as it is.
  #runToolSet(knowledgeBases: readonly string[] | undefined): ToolSet {
    const agent = this.#options;
    const chosen = checkKnowledgeBases(knowledgeBases, agent.resolveTools !== undefined);
    if (chosen === undefined) return agent.toolSet;
    return withKnowledgeBaseSearch(agent.toolSet, {
      client: this.#client,
      model: agent.model,
      knowledgeBases: chosen,
    });
  }

  // Built on the first run (a schema JSON Schema cannot express fails that run, not the constructor), then
  // reused: the JSON Schema of a fixed schema, model and name is the same for every run.
  #runOutput(): RunAgentOptions['output'] {
    const schema = this.#output;
    if (schema === undefined) return undefined;
    this.#outputSpec ??= {
      schema: schema as z.ZodType,
      request: buildOutputRequest(schema, this.#options.model, this.#options.outputName),
    };
    return this.#outputSpec;
  }

  // One manager per agent, made on the first run: counts of messages seen in earlier runs are reused.
  async #withContextWindow(
    state: RunState,
    emit: RunControls['emit'],
    create: CreateChatCompletion,
  ): Promise<CreateChatCompletion> {
    const { ContextManager } = await loadContextManager();
    const { contextWindow, model } = this.#options;
    this.#contextManager ??= new ContextManager({
      contextWindow: contextWindow!,
      client: this.#client,
      model,
    });
    return this.#contextManager.wrap(create, {
      // A handoff's input filter replaces the array: always shrink the one the run sends now.
      get messages() {
        return state.messages;
      },
      step: () => state.steps.length,
      emit,
    });
  }
}

function toRunState(input: AgentInput): RunState {
  if (input instanceof RunState) return input.clone();
  if (typeof input === 'string') return new RunState({ messages: [{ role: 'user', content: input }] });
  if (Array.isArray(input)) return new RunState({ messages: input.map((message) => ({ ...message })) });
  throw new AgentOptionsError({ field: 'input', rule: 'must be a string, a message array or a RunState' });
}

/** The chat method of the agent's channel; the plan channel's model was checked with the options. */
function createFor(client: SvcClient, channel: Channel): CreateChatCompletion {
  if (channel === 'plan') {
    const plan = client.plan.chat.completions;
    return (params, requestOptions) =>
      plan.create(params as ChatCompletionCreateParams & { model: typeof planModelId }, requestOptions);
  }
  return (params, requestOptions) => client.chat.completions.create(params, requestOptions);
}
