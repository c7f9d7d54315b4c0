import { SvcError } from '../../transport/errors.js';

/**
 * The request cannot be made to fit the context window: what must stay (instructions, tool definitions,
 * the current turn, with oversized tool results already cut) is over the budget by itself.
 */
export class ContextWindowExceededError extends SvcError {
  /** Input tokens of what had to stay. */
  readonly tokens: number;
  /** Input tokens allowed. */
  readonly budget: number;

  constructor(options: { tokens: number; budget: number; what: string }) {
    super(
      `contextWindow: ${options.what} take ${options.tokens} tokens, over the budget of ${options.budget} input tokens; raise contextWindow.maxInputTokens or shorten them`,
    );
    this.tokens = options.tokens;
    this.budget = options.budget;
  }
}
