import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import type { ChatMessage } from '../api/types/chat.js';
import type { AgentOptions, AgentResumeOptions, AgentRunOptions } from './agent-options.js';
import { AgentStream, type AgentStreamControls } from './agent-stream.js';
import type { CreateChatCompletion } from './call-model.js';
import type { DurableHooks } from './durable/durable-run.js';
import type { Store } from './durable/store.js';
import { StoredRunRef } from './durable/stored-run-ref.js';
import { AgentOptionsError } from './errors/agent-options-error.js';
import { ignoreEvents } from './ignore-events.js';
import { neverAborted } from './never-aborted.js';
import {
  checkPositiveInteger,
  type NormalizedAgentOptions,
  normalizeAgentOptions,
} from './normalize-agent-options.js';
import type { RunResult } from './run-result.js';
import { RunState, type RunStateOwner } from './run-state.js';
import { buildOutputRequest } from './structured-output.js';

// The run loop and all that only a run needs load on the first run, not when svc-agents is imported:
// every module costs cold-import time, and a run awaits the network anyway.
let runAgentModule: Promise<typeof import('./run-agent.js')> | undefined;
const loadRunAgent = () => {
  runAgentModule ??= import('./run-agent.js');
  return runAgentModule;
};
let durableModule: Promise<typeof import('./durable/execute-durably.js')> | undefined;
const loadDurable = () => {
  durableModule ??= import('./durable/execute-durably.js');
  return durableModule;
};

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
  readonly #store: Store | undefined;
  readonly #name: string;

  constructor(options: AgentOptions<TContext, TOutput>) {
    this.#options = normalizeAgentOptions(options);
    this.#store = options.store;
    this.#name = options.name ?? 'agent';
    const client = options.client;
    this.#client = client;
    this.#output = options.output;
    this.#create = (params, requestOptions) => client.chat.completions.create(params, requestOptions);
  }

  /** The model every request uses. */
  get model(): string {
    return this.#options.model;
  }

  /** True when the agent has a local function tool of this name (used by `RunState.fromJSON`). */
  hasFunctionTool(name: string): boolean {
    return this.#options.toolSet.functions.has(name);
  }

  /** Runs to the end (or to a pause for approvals); by default without streaming the HTTP answers. */
  run(input: AgentInput, options: AgentRunOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    // Nobody can observe a run()'s events or abort it except through `options.signal`: no AgentStream,
    // no AbortController and no event objects, just the loop.
    return this.#execute(input, options, options.stream ?? false, {
      emit: options.onEvent ?? ignoreEvents,
      signal: options.signal ?? neverAborted,
    });
  }

  /** Continues a run kept in the agent's `store` from its last checkpoint (a completed run is answered as stored). */
  resume(runId: string, options: AgentResumeOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    return this.#execute(new StoredRunRef(runId), options, options.stream ?? false, {
      emit: options.onEvent ?? ignoreEvents,
      signal: options.signal ?? neverAborted,
    });
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
    { emit, signal }: AgentStreamControls,
  ): Promise<RunResult<TOutput>> {
    const agent = this.#options;
    const client = this.#client;
    const maxTurns = options.maxTurns ?? agent.maxTurns;
    checkPositiveInteger('maxTurns', maxTurns);
    const outputSchema = this.#output;
    const output = outputSchema
      ? {
          schema: outputSchema as z.ZodType,
          request: buildOutputRequest(outputSchema, agent.model, agent.outputName),
        }
      : undefined;
    const { runAgent } = await loadRunAgent();
    const runId = input instanceof StoredRunRef ? input.runId : (options.runId ?? crypto.randomUUID());
    const loop = (state: RunState, durable?: DurableHooks) =>
      runAgent({
        ...agent,
        state,
        output,
        maxTurns,
        stream,
        context: options.context,
        client,
        create: this.#create,
        signal,
        emit,
        runId,
        durable,
      }) as Promise<RunResult<TOutput>>;
    const store = options.store ?? this.#store;
    if (store === undefined) {
      if (input instanceof StoredRunRef) this.#requireStore('resume');
      if (options.session !== undefined) {
        throw new AgentOptionsError({ field: 'session', rule: 'needs the agent option store' });
      }
      return loop(toRunState(input as AgentInput));
    }
    const { executeDurably } = await loadDurable();
    return (await executeDurably({
      store,
      agentName: this.#name,
      runId,
      owner: this,
      toolSet: agent.toolSet,
      input: input instanceof StoredRunRef ? undefined : () => toRunState(input),
      session: options.session,
      fresh: !(input instanceof RunState),
      loop,
    })) as RunResult<TOutput>;
  }
}

function toRunState(input: AgentInput): RunState {
  if (input instanceof RunState) return input.clone();
  if (typeof input === 'string') return new RunState({ messages: [{ role: 'user', content: input }] });
  if (Array.isArray(input)) return new RunState({ messages: input.map((message) => ({ ...message })) });
  throw new AgentOptionsError({ field: 'input', rule: 'must be a string, a message array or a RunState' });
}
