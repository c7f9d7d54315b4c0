import type { ChatMessage } from '../../api/types/chat.js';

/** What a custom context strategy gets: the conversation, the budget, and a way to measure. */
export interface ContextStrategyInput {
  /** The run's messages (without the agent's instructions), oldest first. */
  messages: readonly ChatMessage[];
  /** Index in `messages` where the current turn (the last user message and what followed it) starts. */
  currentTurnStart: number;
  /** Tokens the messages may take: the budget minus the instructions and tool definitions. */
  budget: number;
  /** Tokens the messages take now. */
  tokens: number;
  /** Input tokens of some messages, counted as the agent counts them (cached per message). */
  countTokens(messages: readonly ChatMessage[]): Promise<number>;
  /** Aborts with the run. */
  signal: AbortSignal;
}

/**
 * A custom strategy: returns the messages to keep (it may summarise or drop; the agent then checks that
 * every tool call is still paired with its tool message and that the result fits).
 */
export type ContextStrategy = (input: ContextStrategyInput) => ChatMessage[] | Promise<ChatMessage[]>;

/** Options of the summarize strategy. */
export interface ContextSummaryOptions {
  /** Model that writes the summary. @default the agent's model */
  model?: string;
  /** System instructions of the summary request. @default a prompt asking for facts, decisions and open tasks */
  instructions?: string;
  /** `max_tokens` of the summary. @default 512 */
  maxTokens?: number;
}

/** How the agent keeps each request under the model's context window (`new Agent({ contextWindow })`). */
export interface ContextWindowOptions {
  /**
   * What to do when the conversation outgrows the budget: `truncate` drops the oldest turns, `summarize`
   * replaces them by a summary the model writes (kept in the run's messages), or a function of yours.
   * @default 'truncate'
   */
  strategy?: 'truncate' | 'summarize' | ContextStrategy;
  /** Input tokens allowed per request. @default the model's window (see `windows`) minus the reserved output */
  maxInputTokens?: number;
  /** Context windows per model over the built-in table `defaultContextWindows`. */
  windows?: Record<string, number>;
  /** Output tokens kept free when `maxInputTokens` is not given. @default modelSettings.max_tokens, else a quarter of the window (at most 4096) */
  reserveOutputTokens?: number;
  /**
   * How messages are measured: `service` counts each new message once with `POST /v1/token/count` (falling
   * back to the local tokenizer when the service cannot count it); `local` uses the bundled tokenizer only.
   * @default 'service'
   */
  counting?: 'service' | 'local';
  /**
   * Share of the budget a trim aims for, so the next turns fit without trimming again and the prompt's
   * prefix (hence the service's prompt cache) stays the same for a while. @default 0.7
   */
  trimTarget?: number;
  /** Largest share of the budget a single tool result may take; a longer one is cut with a marker. @default 0.5 */
  maxToolResultShare?: number;
  /** Options of the `summarize` strategy. */
  summary?: ContextSummaryOptions;
}

/** `contextWindow` checked, with defaults filled in. */
export interface NormalizedContextWindow {
  strategy: 'truncate' | 'summarize' | ContextStrategy;
  maxInputTokens: number | undefined;
  windows: Record<string, number> | undefined;
  reserveOutputTokens: number | undefined;
  counting: 'service' | 'local';
  trimTarget: number;
  maxToolResultShare: number;
  summary: Required<Omit<ContextSummaryOptions, 'model'>> & { model: string | undefined };
}

/** Defaults of `contextWindow`. */
export const defaultContextWindowOptions = {
  strategy: 'truncate',
  counting: 'service',
  trimTarget: 0.7,
  maxToolResultShare: 0.5,
  summaryMaxTokens: 512,
  summaryInstructions:
    'Summarize the conversation below for the assistant that continues it. Keep every fact, name, number, ' +
    'decision and open task the rest of the conversation may need; drop small talk. Answer with the summary only.',
} as const;
