import type { SvcClient } from '../../api/svc-client.js';
import type { ChatMessage, ToolDefinition } from '../../api/types/chat.js';
import type { TokenCountParams } from '../../api/types/tokens.js';
import { APIConnectionError, APIUserAbortError, NotFoundError } from '../../core/errors.js';
import { estimateMessageTokens, loadTokenizer, PROMPT_PRIMING_TOKENS } from './local-tokens.js';

// Remembered counts per agent; a long-lived agent serving many conversations forgets the oldest first.
const MAX_CACHED = 20_000;
// Count requests in flight at once when many messages are new (a resumed conversation).
const COUNT_CONCURRENCY = 4;

/**
 * Measures messages for one model, each message once: the exact count from `POST /v1/token/count`
 * (one request per message never seen before, by content), else the bundled tokenizer's estimate.
 */
export class MessageTokenCounter {
  readonly #client: SvcClient;
  readonly #model: string;
  #useService: boolean;
  readonly #byObject = new WeakMap<object, number>();
  readonly #byContent = new Map<string, number>();
  #toolsKey: readonly ToolDefinition[] | undefined;
  #toolsTokens = 0;

  constructor(options: { client: SvcClient; model: string; counting: 'service' | 'local' }) {
    this.#client = options.client;
    this.#model = options.model;
    this.#useService = options.counting === 'service';
  }

  /** Tokens each message adds to a prompt (framing included), counting only the ones not seen before. */
  async measure(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<number[]> {
    const counts: number[] = new Array(messages.length);
    const missing: Array<{ index: number; key: string }> = [];
    for (const [index, message] of messages.entries()) {
      const known = this.#byObject.get(message);
      if (known !== undefined) {
        counts[index] = known;
        continue;
      }
      const key = JSON.stringify(message);
      const cached = this.#byContent.get(key);
      if (cached !== undefined) {
        this.#byObject.set(message, cached);
        counts[index] = cached;
      } else missing.push({ index, key });
    }
    // The same new content twice (a repeated question) is still counted once.
    const pending = new Map<string, Promise<number>>();
    const work = missing.map(({ index, key }) => async () => {
      const message = messages[index] as ChatMessage;
      let counting = pending.get(key);
      if (!counting) {
        counting = this.#count(message, signal);
        pending.set(key, counting);
      }
      const tokens = await counting;
      counts[index] = tokens;
      this.remember(message, tokens, key);
    });
    await runPool(work, COUNT_CONCURRENCY);
    return counts;
  }

  /** Records a message's size measured elsewhere (a cut tool result, a summary): it is never counted again. */
  remember(message: ChatMessage, tokens: number, key = JSON.stringify(message)): void {
    this.#byObject.set(message, tokens);
    this.#byContent.delete(key);
    this.#byContent.set(key, tokens);
    if (this.#byContent.size > MAX_CACHED)
      this.#byContent.delete(this.#byContent.keys().next().value as string);
  }

  /** Tokens of the tool definitions (local estimate: the count operation takes messages only). */
  async toolTokens(tools: readonly ToolDefinition[] | undefined): Promise<number> {
    if (!tools || tools.length === 0) return 0;
    if (tools !== this.#toolsKey) {
      const { countTokens } = await loadTokenizer();
      this.#toolsTokens = countTokens(JSON.stringify(tools));
      this.#toolsKey = tools;
    }
    return this.#toolsTokens;
  }

  async #count(message: ChatMessage, signal: AbortSignal | undefined): Promise<number> {
    const countable = this.#useService ? toCountable(message) : undefined;
    if (countable) {
      try {
        const { data } = await this.#client.tokens.count(
          { model: this.#model, messages: [countable] },
          { signal, maxRetries: 0 },
        );
        return Math.max(1, data.total_tokens - PROMPT_PRIMING_TOKENS);
      } catch (error) {
        if (signal?.aborted || APIUserAbortError.isInstance(error)) throw error;
        // No count operation here (a proxy, an old deployment): stop asking; any other refusal is per message.
        if (NotFoundError.isInstance(error) || APIConnectionError.isInstance(error)) this.#useService = false;
      }
    }
    return estimateMessageTokens(message, await loadTokenizer());
  }
}

/**
 * The message as the count operation accepts it (system, user with text and url-only images, assistant),
 * counting the same tokens; `undefined` when it has parts the operation cannot count exactly.
 */
function toCountable(message: ChatMessage): TokenCountParams['messages'][number] | undefined {
  switch (message.role) {
    case 'tool':
      return { role: 'user', content: message.content };
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', content: message.content };
      const parts = [];
      for (const part of message.content) {
        if (part.type === 'text') parts.push(part);
        else if (part.type === 'image_url' && part.image_url.detail !== 'high') {
          parts.push({ type: 'image_url' as const, image_url: { url: part.image_url.url } });
        } else return undefined;
      }
      return { role: 'user', content: parts };
    }
    default:
      return message;
  }
}

async function runPool(tasks: Array<() => Promise<void>>, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
}
