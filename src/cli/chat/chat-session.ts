import type { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { PriceTable } from '../../agent/cost/price-table.js';
import type { AgentEvent } from '../../agent/events.js';
import type { ModelSettings } from '../../agent/model-settings.js';
import type { RunResult, ToolApprovalItem } from '../../agent/run-result.js';
import type { RunState } from '../../agent/run-state.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { ChatMessage, ContentPart } from '../../api/types/chat.js';
import type { Channel } from '../../api/types/request-options.js';
import type { AnyTool } from '../../tools/tool.js';

/** Options of a chat session. */
export interface ChatSessionOptions {
  client: SvcClient;
  model: string;
  /** Builds the session's agent for a model (on start and on each `setModel`); else one from the options below. */
  createAgent?: ((model: string) => Agent<unknown, unknown>) | undefined;
  tools?: AnyTool[];
  instructions?: string;
  /** Prices per model: each turn's `usage.cost` (models without a price get none). */
  prices?: PriceTable | undefined;
  /** Knowledge bases (names or ids) the agent searches with citations; see the agent option. */
  knowledgeBases?: readonly string[] | undefined;
  /** The plan channel (`svc-router-v1`) or the default one. */
  channel?: Channel | undefined;
  /** Request fields of every turn (audio output, ...). */
  modelSettings?: ModelSettings | undefined;
  /** A schema the answers must match (structured output). */
  output?: z.ZodType | undefined;
}

/** How one message is sent: events go to `onEvent`; `decide` answers approval requests. */
export interface SendOptions {
  onEvent(event: AgentEvent): void;
  signal?: AbortSignal;
  /** Returns true to let a paused tool call run; false rejects it. */
  decide(item: ToolApprovalItem): Promise<boolean>;
  /** Images, audio or videos sent with this message, after its text. */
  attachments?: readonly ContentPart[];
}

/** A conversation with an agent that keeps its history between messages and can switch models. */
export class ChatSession {
  #agent: Agent<unknown, unknown>;
  #messages: ChatMessage[] = [];
  /** The last message that failed, with the state to resume it from (tool results already in). */
  #failed: { message: ChatMessage; state: RunState | undefined } | undefined;
  readonly #options: ChatSessionOptions;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.#agent = this.#createAgent(options.model);
  }

  /** The model answering. */
  get model(): string {
    return this.#options.model;
  }

  /** The conversation so far. */
  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  /** Switches the model; the conversation is kept. */
  setModel(model: string): void {
    this.#options.model = model;
    this.#agent = this.#createAgent(model);
  }

  /** True when the last message failed and `retry()` can resume it. */
  get canRetry(): boolean {
    return this.#failed !== undefined;
  }

  /** Forgets the conversation. */
  reset(): void {
    this.#messages = [];
    this.#failed = undefined;
  }

  /** Sends one user message; pauses for approvals are answered with `decide` and the run resumed. */
  send(prompt: string, options: SendOptions): Promise<RunResult<unknown>> {
    this.#failed = undefined;
    const content: string | ContentPart[] = options.attachments?.length
      ? [{ type: 'text', text: prompt }, ...options.attachments]
      : prompt;
    const message: ChatMessage = { role: 'user', content };
    return this.#drive(message, [...this.#messages, message], options);
  }

  /** Resumes the message that failed last, from where it stopped: finished tool calls do not run again. */
  retry(options: SendOptions): Promise<RunResult<unknown>> {
    const failed = this.#failed;
    if (!failed) return Promise.reject(new Error('nothing to retry'));
    this.#failed = undefined;
    return this.#drive(failed.message, failed.state ?? [...this.#messages, failed.message], options);
  }

  async #drive(
    message: ChatMessage,
    input: ChatMessage[] | RunState,
    options: SendOptions,
  ): Promise<RunResult<unknown>> {
    try {
      return await this.#run(input, options);
    } catch (error) {
      this.#failed = { message, state: (error as { state?: RunState }).state };
      throw error;
    }
  }

  async #run(input: ChatMessage[] | RunState, options: SendOptions): Promise<RunResult<unknown>> {
    const runOptions = options.signal ? { signal: options.signal } : {};
    let stream = this.#agent.stream(input, runOptions);
    for (;;) {
      for await (const event of stream) options.onEvent(event);
      const result = await stream.result;
      // Keep what happened even when the run pauses, so a failure later loses nothing.
      this.#messages = [...result.messages];
      if (result.status === 'completed') return result;
      for (const item of result.interruptions) {
        if (await options.decide(item)) result.state.approve(item.toolCallId);
        else result.state.reject(item.toolCallId, 'The user declined this action.');
      }
      stream = this.#agent.stream(result.state, runOptions);
    }
  }

  #createAgent(model: string): Agent<unknown, unknown> {
    const { client, tools, instructions, prices, knowledgeBases, channel, modelSettings, output } =
      this.#options;
    if (this.#options.createAgent) return this.#options.createAgent(model);
    return new Agent<unknown, unknown>({
      client,
      model,
      ...(tools ? { tools } : {}),
      ...(instructions ? { instructions } : {}),
      ...(prices?.[model] ? { prices } : {}),
      ...(knowledgeBases ? { knowledgeBases } : {}),
      ...(channel ? { channel } : {}),
      ...(modelSettings ? { modelSettings } : {}),
      ...(output ? { output } : {}),
    });
  }
}
