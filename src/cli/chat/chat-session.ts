import { Agent } from '../../agent/agent.js';
import type { AgentEvent } from '../../agent/events.js';
import type { RunResult, ToolApprovalItem } from '../../agent/run-result.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { ChatMessage } from '../../api/types/chat.js';
import type { AnyTool } from '../../tools/tool.js';

/** Options of a chat session. */
export interface ChatSessionOptions {
  client: SvcClient;
  model: string;
  tools: AnyTool[];
  instructions: string;
}

/** How one message is sent: events go to `onEvent`; `decide` answers approval requests. */
export interface SendOptions {
  onEvent(event: AgentEvent): void;
  signal?: AbortSignal;
  /** Returns true to let a paused tool call run; false rejects it. */
  decide(item: ToolApprovalItem): Promise<boolean>;
}

/** A conversation with an agent that keeps its history between messages and can switch models. */
export class ChatSession {
  #agent: Agent;
  #messages: ChatMessage[] = [];
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

  /** Forgets the conversation. */
  reset(): void {
    this.#messages = [];
  }

  /** Sends one user message; pauses for approvals are answered with `decide` and the run resumed. */
  async send(prompt: string, options: SendOptions): Promise<RunResult> {
    const runOptions = options.signal ? { signal: options.signal } : {};
    let stream = this.#agent.stream([...this.#messages, { role: 'user', content: prompt }], runOptions);
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

  #createAgent(model: string): Agent {
    const { client, tools, instructions } = this.#options;
    return new Agent({ client, model, tools, instructions });
  }
}
