import { contextWindowOf, isInputTooLongMessage } from '../../api/context-windows.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { ChatCompletionCreateParams, ChatMessage } from '../../api/types/chat.js';
import { BadRequestError } from '../../core/errors.js';
import type { AgentEvent } from '../events.js';
import type { CreateChatCompletion } from '../loop/call-model.js';
import type { NormalizedContextWindow } from './context-window-options.js';
import { fitContext } from './fit-context.js';
import { MessageTokenCounter } from './message-token-counter.js';

// Output kept free when neither `reserveOutputTokens` nor `max_tokens` says: a quarter of the window, at most this.
const DEFAULT_RESERVE_CAP = 4096;
// After the service refused an input we measured as fitting, aim this much lower than our measure.
const REJECTED_SHRINK = 0.75;

/** What one run hands the context manager. */
export interface ContextRun {
  /** The run's conversation (shrunk in place). */
  messages: ChatMessage[];
  /** Index of the step about to be requested. */
  step(): number;
  /** The run's events; absent when nobody observes them. */
  emit: ((event: AgentEvent) => void) | undefined;
}

/**
 * An agent's context management: one per agent, so the token counts of messages seen in earlier runs of
 * a conversation are reused. `wrap` puts it in front of the agent's model call.
 */
export class ContextManager {
  readonly #options: NormalizedContextWindow;
  readonly #client: SvcClient;
  readonly #model: string;
  readonly #counter: MessageTokenCounter;

  constructor(options: { contextWindow: NormalizedContextWindow; client: SvcClient; model: string }) {
    this.#options = options.contextWindow;
    this.#client = options.client;
    this.#model = options.model;
    this.#counter = new MessageTokenCounter({
      client: options.client,
      model: options.model,
      counting: options.contextWindow.counting,
    });
  }

  /** Input tokens a request may take. */
  budget(params: Pick<ChatCompletionCreateParams, 'model' | 'max_tokens'>): number {
    if (this.#options.maxInputTokens !== undefined) return this.#options.maxInputTokens;
    const window = contextWindowOf(params.model, this.#options.windows);
    const reserve =
      this.#options.reserveOutputTokens ??
      (typeof params.max_tokens === 'number'
        ? params.max_tokens
        : Math.min(DEFAULT_RESERVE_CAP, Math.floor(window / 4)));
    return Math.max(1, window - reserve);
  }

  /**
   * The model call of one run, kept under the window: before each request the conversation is measured
   * and shrunk when over (in the run's messages, so later turns resend the same prefix); a 400 saying the
   * input is too long shrinks it further and retries once.
   */
  wrap(create: CreateChatCompletion, run: ContextRun): CreateChatCompletion {
    return async (params, requestOptions) => {
      const signal = requestOptions.signal;
      const fixedCount = params.messages.length - run.messages.length;
      const shrinkToFit = async (budget: number, reason: 'budget' | 'rejected') => {
        const { tokens, event } = await fitContext({
          messages: run.messages,
          fixed: params.messages.slice(0, fixedCount),
          tools: params.tools,
          budget,
          reason,
          step: run.step(),
          options: this.#options,
          counter: this.#counter,
          client: this.#client,
          model: this.#model,
          signal,
        });
        if (event) {
          params.messages = [...params.messages.slice(0, fixedCount), ...run.messages];
          run.emit?.(event);
        }
        return { tokens, changed: event !== undefined };
      };
      const budget = this.budget(params);
      const { tokens: measured } = await shrinkToFit(budget, 'budget');
      try {
        return await create(params, requestOptions);
      } catch (error) {
        if (!BadRequestError.isInstance(error) || !isInputTooLongMessage(error.message)) throw error;
        const shrunk = await shrinkToFit(
          Math.floor(Math.min(budget, measured) * REJECTED_SHRINK),
          'rejected',
        );
        if (!shrunk.changed) throw error;
        return create(params, requestOptions);
      }
    };
  }
}
