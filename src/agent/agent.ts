import type { z } from 'zod';
import type { SvcClient } from '../api/svc-client.js';
import type { ChatMessage } from '../api/types/chat.js';
import type { AgentOptions, AgentRunOptions } from './agent-options.js';
import { AgentStream } from './agent-stream.js';
import type { CreateChatCompletion } from './call-model.js';
import { AgentOptionsError } from './errors/agent-options-error.js';
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

  constructor(options: AgentOptions<TContext, TOutput>) {
    this.#options = normalizeAgentOptions(options);
    this.#client = options.client;
    this.#output = options.output;
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
    return this.#start(input, { ...options, stream: options.stream ?? false }, false).result;
  }

  /** Runs and streams events as they happen; see `AgentStream`. */
  stream(input: AgentInput, options: AgentRunOptions<TContext> = {}): AgentStream<TOutput> {
    return this.#start(input, { ...options, stream: options.stream ?? true }, true);
  }

  #start(input: AgentInput, options: AgentRunOptions<TContext>, buffer: boolean): AgentStream<TOutput> {
    const agent = this.#options;
    const client = this.#client;
    const create: CreateChatCompletion = (params, requestOptions) =>
      client.chat.completions.create(params, requestOptions);
    const outputSchema = this.#output;
    // Checked inside the run, so a bad option rejects `result` (and yields `error`) like any failure.
    return new AgentStream<TOutput>(
      async ({ emit, signal }) => {
        const maxTurns = options.maxTurns ?? agent.maxTurns;
        checkPositiveInteger('maxTurns', maxTurns);
        const output = outputSchema
          ? {
              schema: outputSchema as z.ZodType,
              request: buildOutputRequest(outputSchema, agent.model, agent.outputName),
            }
          : undefined;
        const state = toRunState(input);
        const { runAgent } = await loadRunAgent();
        return (await runAgent({
          ...agent,
          state,
          output,
          maxTurns,
          stream: options.stream === true,
          context: options.context,
          client,
          create,
          signal,
          emit,
        })) as RunResult<TOutput>;
      },
      { signal: options.signal, buffer },
    );
  }
}

function toRunState(input: AgentInput): RunState {
  if (input instanceof RunState) return input.clone();
  if (typeof input === 'string') return new RunState({ messages: [{ role: 'user', content: input }] });
  if (Array.isArray(input)) return new RunState({ messages: input.map((message) => ({ ...message })) });
  throw new AgentOptionsError({ field: 'input', rule: 'must be a string, a message array or a RunState' });
}
