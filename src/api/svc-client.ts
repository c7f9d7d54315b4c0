import { inspect } from 'node:util';
import type { ClientOptions } from '../transport/client-options.js';
import { HttpTransport } from '../transport/http-transport.js';
import { ChatCompletions } from './resources/chat-completions.js';
import { Files } from './resources/files.js';
import { Images } from './resources/images.js';
import { Messages } from './resources/messages.js';
import { Models } from './resources/models.js';
import type { ResourceContext } from './resources/resource-context.js';
import { Tokens } from './resources/tokens.js';
import { VectorStores } from './resources/vector-stores.js';
import { Audio } from './resources/voices.js';
import type { planModelId } from './schemas/model-ids.js';

/** Options of `new SvcClient(...)`. */
export interface SvcClientOptions extends ClientOptions {
  /** Check every request against the spec's rules before sending it; `false` sends it as is. @default true */
  validate?: boolean | undefined;
}

/**
 * The typed client of the whole service: one keep-alive connection pool shared by every resource.
 * `apiKey` defaults to `SVC_API_KEY`, `baseURL` (the service root) to `SVC_BASE_URL`.
 *
 * @example
 * const client = new SvcClient();
 * const completion = await client.chat.completions.create({ model: 'svc-3.5-flash', messages });
 */
export class SvcClient {
  /** Chat completions on `/v1`. */
  readonly chat: { readonly completions: ChatCompletions };
  /** Token counting in the chat format. */
  readonly tokens: Tokens;
  /** Messages-format token counting. */
  readonly messages: Messages;
  /** The plan channel (`/svc_plan/v1`): chat completions and Messages token counting. */
  readonly plan: {
    readonly chat: { readonly completions: ChatCompletions<typeof planModelId> };
    readonly messages: Messages;
  };
  /** Model listing. */
  readonly models: Models;
  /** Uploaded files. */
  readonly files: Files;
  /** Knowledge bases and their files. */
  readonly vectorStores: VectorStores;
  /** Voice cloning. */
  readonly audio: Audio;
  /** Text-to-image generation. */
  readonly images: Images;
  /** The transport every resource shares; it keeps the API key private. */
  readonly transport: HttpTransport;
  /** Whether requests are validated before sending. */
  readonly validate: boolean;

  constructor({ validate = true, ...options }: SvcClientOptions = {}) {
    this.transport = new HttpTransport(options);
    this.validate = validate;
    const context: ResourceContext = { transport: this.transport, validate };
    this.chat = { completions: new ChatCompletions(context) };
    this.tokens = new Tokens(context);
    this.messages = new Messages(context);
    this.plan = {
      chat: { completions: new ChatCompletions<typeof planModelId>(context, 'plan') },
      messages: new Messages(context, 'plan'),
    };
    this.models = new Models(context);
    this.files = new Files(context);
    this.vectorStores = new VectorStores(context);
    this.audio = new Audio(context);
    this.images = new Images(context);
  }

  /** The service root requests go to (without `/v1`). */
  get baseURL(): string {
    return this.transport.baseURL;
  }

  /** Closes the connection pool; in-flight requests finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** A short, key-free description for logs. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, validate: this.validate };
  }

  /** `util.inspect` shows the same key-free description as `toJSON`. */
  [inspect.custom](): string {
    return `SvcClient ${inspect(this.toJSON())}`;
  }
}
