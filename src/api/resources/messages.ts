import type { MessagesCountTokensParams, MessagesTokenCount } from '../types/messages.js';
import type { Channel, RequestOptions } from '../types/request-options.js';
import { channelPrefix } from './chat-completions.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, withOptions } from './resource-context.js';

/** `client.messages` (and `client.plan.messages`): the Messages-format operations. */
export class Messages {
  readonly #context: ResourceContext;
  readonly #channel: Channel;

  constructor(context: ResourceContext, channel: Channel = 'default') {
    this.#context = context;
    this.#channel = channel;
  }

  /** Estimates the input tokens of a Messages-format request (`POST .../messages/count_tokens`). */
  async countTokens(
    params: MessagesCountTokensParams,
    options?: RequestOptions,
  ): Promise<MessagesTokenCount> {
    if (this.#context.validate) await validateRequest.messagesCountTokens(params, this.#channel);
    return this.#context.transport.request<MessagesTokenCount>(
      withOptions(
        { method: 'POST', path: `${channelPrefix[this.#channel]}/messages/count_tokens`, body: params },
        options,
      ),
    );
  }
}
