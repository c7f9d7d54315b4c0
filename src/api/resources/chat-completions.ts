import { ChatCompletionStream } from '../chat/chat-completion-stream.js';
import type { ChatCompletion, ChatCompletionCreateParams } from '../types/chat.js';
import type { Channel, RequestOptions } from '../types/request-options.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, withOptions } from './resource-context.js';

/** Path prefix of each channel. */
export const channelPrefix: Record<Channel, string> = { default: '/v1', plan: '/svc_plan/v1' };

/**
 * `client.chat.completions` (and `client.plan.chat.completions` on the plan channel). `Model` narrows the
 * accepted model ids: the plan channel takes only `'svc-router-v1'`, so another id is a type error there.
 */
export class ChatCompletions<Model extends string = string> {
  readonly #context: ResourceContext;
  readonly #channel: Channel;

  constructor(context: ResourceContext, channel: Channel = 'default') {
    this.#context = context;
    this.#channel = channel;
  }

  /** Creates a chat completion; with `stream: true` resolves to a {@link ChatCompletionStream}. */
  create(
    params: ChatCompletionCreateParams & { model: Model; stream?: false | undefined },
    options?: RequestOptions,
  ): Promise<ChatCompletion>;
  create(
    params: ChatCompletionCreateParams & { model: Model; stream: true },
    options?: RequestOptions,
  ): Promise<ChatCompletionStream>;
  create(
    params: ChatCompletionCreateParams & { model: Model },
    options?: RequestOptions,
  ): Promise<ChatCompletion | ChatCompletionStream>;
  create(
    params: ChatCompletionCreateParams,
    options?: RequestOptions,
  ): Promise<ChatCompletion | ChatCompletionStream> {
    // Not an async function: once the schemas are loaded, a request goes out with no await of its own
    // (one promise per request is the transport's). A broken rule still rejects, never throws.
    let loading: Promise<void> | undefined;
    try {
      if (this.#context.validate) {
        loading = validateRequest.chatCompletion(params, this.#channel);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    if (loading !== undefined) return loading.then(() => this.#send(params, options));
    return this.#send(params, options);
  }

  #send(
    params: ChatCompletionCreateParams,
    options: RequestOptions | undefined,
  ): Promise<ChatCompletion | ChatCompletionStream> {
    const request = withOptions(
      { method: 'POST', path: `${channelPrefix[this.#channel]}/chat/completions`, body: params },
      options,
    );
    if (params.stream === true) {
      return this.#context.transport.stream(request).then((sse) => new ChatCompletionStream(sse));
    }
    return this.#context.transport.request<ChatCompletion>(request);
  }
}
