import type { z } from 'zod';
import type { planModelId } from '../api/schemas/model-ids.js';
import type { SvcClient } from '../api/svc-client.js';
import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import type { Channel } from '../api/types/request-options.js';
import { findKnowledgeBases } from '../tools/built-in/find-knowledge-bases.js';
import type { ToolSet } from '../tools/tool.js';
import type { ContextManager } from './context/context-manager.js';
import type { AgentEvent } from './events.js';
import type { CreateChatCompletion } from './loop/call-model.js';
import { checkKnowledgeBases, withKnowledgeBaseSearch } from './loop/knowledge-base-search.js';
import { buildOutputRequest, type OutputRequest } from './loop/structured-output.js';
import type { NormalizedAgentOptions } from './normalize-agent-options.js';
import type { RunState } from './run-state.js';

/** The key under which an `Agent` holds its `AgentCore`: how a run reaches the agents it hands off to. */
export const AGENT_CORE: unique symbol = Symbol('svc-agents.agentCore');

/** The structured output's schema and the request fields it adds. */
export interface OutputSpec {
  schema: z.ZodType;
  request: OutputRequest;
}

/**
 * What a run needs of one agent, built once when the agent is: its checked options (handoff targets
 * already resolved to their own cores), its client and model call, its output request and its context
 * window. The run loop holds the core of the agent in charge; a handoff swaps it for the target's.
 */
export class AgentCore {
  /** The agent's checked options, shared by reference with every run. */
  readonly options: NormalizedAgentOptions;
  /** The client handed to tools as `ctx.client`. */
  readonly client: SvcClient;
  /** The chat method of the agent's channel. */
  readonly create: CreateChatCompletion;
  readonly #schema: z.ZodType | undefined;
  #output: OutputSpec | undefined;
  #contextManager: ContextManager | undefined;
  #agentKnowledgeBasesFound: Promise<unknown> | undefined;

  constructor(options: NormalizedAgentOptions, client: SvcClient, schema: z.ZodType | undefined) {
    this.options = options;
    this.client = client;
    this.#schema = schema;
    this.create = createFor(client, options.channel);
  }

  /**
   * The output request, built on the first run (a schema JSON Schema cannot express fails that run, not
   * the constructor), then reused: the JSON Schema of a fixed schema, model and name never changes.
   */
  output(): OutputSpec | undefined {
    const schema = this.#schema;
    if (schema === undefined) return undefined;
    this.#output ??= {
      schema,
      request: buildOutputRequest(schema, this.options.model, this.options.outputName),
    };
    return this.#output;
  }

  /** A run's own knowledge bases give it its own search tool; the agent's tool set is left as it is. */
  toolSetFor(knowledgeBases: readonly string[] | undefined): ToolSet {
    const { options } = this;
    const chosen = checkKnowledgeBases(knowledgeBases, options.resolveTools !== undefined);
    if (chosen === undefined) return options.toolSet;
    return withKnowledgeBaseSearch(options.toolSet, {
      client: this.client,
      model: options.model,
      knowledgeBases: chosen,
    });
  }

  /**
   * Makes sure the knowledge bases a run searches exist before its first model request: the run's own,
   * looked up each run, else the agent's, looked up on its first run only (a failed look-up is tried again).
   * An unknown one is a `KnowledgeBaseNameError` listing the account's knowledge bases.
   */
  async findKnowledgeBases(
    runKnowledgeBases: readonly string[] | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    if (runKnowledgeBases !== undefined) {
      await findKnowledgeBases(this.client, runKnowledgeBases, signal);
      return;
    }
    const own = this.options.knowledgeBases;
    if (own === undefined) return;
    this.#agentKnowledgeBasesFound ??= findKnowledgeBases(this.client, own, signal).catch(
      (error: unknown) => {
        this.#agentKnowledgeBasesFound = undefined;
        throw error;
      },
    );
    await this.#agentKnowledgeBasesFound;
  }

  /**
   * Puts the agent's context window (if it has one) in front of `create` for a run on `state`. One
   * manager per agent, made on its first run: counts of messages seen in earlier runs are reused.
   */
  async withContextWindow(
    create: CreateChatCompletion,
    state: RunState,
    emit: ((event: AgentEvent) => void) | undefined,
  ): Promise<CreateChatCompletion> {
    const { contextWindow, model } = this.options;
    if (contextWindow === undefined) return create;
    if (this.#contextManager === undefined) {
      // Loaded on the first run of an agent with a context window: the tokenizer is a large module.
      const { ContextManager } = await import('./context/context-manager.js');
      this.#contextManager ??= new ContextManager({ contextWindow, client: this.client, model });
    }
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

/** The chat method of the agent's channel; the plan channel's model was checked with the options. */
function createFor(client: SvcClient, channel: Channel): CreateChatCompletion {
  if (channel === 'plan') {
    const plan = client.plan.chat.completions;
    return (params, requestOptions) =>
      plan.create(params as ChatCompletionCreateParams & { model: typeof planModelId }, requestOptions);
  }
  return (params, requestOptions) => client.chat.completions.create(params, requestOptions);
}
