import type { RequestOptions } from '../types/request-options.js';
import type { TokenCount, TokenCountParams } from '../types/tokens.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, withOptions } from './resource-context.js';

/** `client.tokens`: token counting in the chat-completion format. */
export class Tokens {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /** Counts the input tokens of `messages` for `model` (`POST /v1/token/count`); no reply is generated. */
  async count(params: TokenCountParams, options?: RequestOptions): Promise<TokenCount> {
    if (this.#context.validate) await validateRequest.tokenCount(params);
    return this.#context.transport.request<TokenCount>(
      withOptions({ method: 'POST', path: '/v1/token/count', body: params }, options),
    );
  }
}
