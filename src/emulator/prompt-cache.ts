import { createHash } from 'node:crypto';
import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import { countChatMessageTokens, countChatPromptHeadTokens } from './tokenize.js';

// Prefixes remembered per emulator; the oldest are forgotten first so a long-running emulator stays small.
const MAX_ENTRIES = 50_000;

/** What a chat request's prompt costs, and how much of it a previous request already sent. */
export interface PromptMeasure {
  /** Prompt tokens of the whole request. */
  promptTokens: number;
  /** Tokens of the longest leading part (model, tools, first messages) an earlier request sent byte for byte. */
  cachedTokens: number;
}

/**
 * The service's prompt cache, as seen from outside: a request whose leading messages (with the same model
 * and tools) repeat an earlier request's byte for byte reports those tokens as `usage.cached_tokens`.
 * Prefixes are hashed message by message, so a lookup costs one pass over the request.
 */
export class PromptCache {
  readonly #seen = new Map<string, true>();

  /** Measures a request and remembers its prefixes for the next ones. */
  measure(body: Pick<ChatCompletionCreateParams, 'model' | 'messages' | 'tools'>): PromptMeasure {
    const tools = body.tools && body.tools.length > 0 ? body.tools : undefined;
    let promptTokens = countChatPromptHeadTokens(tools);
    let hash = digest(`${body.model}\n${tools ? JSON.stringify(tools) : ''}`);
    let cachedTokens = 0;
    let stillCached = true;
    for (const message of body.messages) {
      hash = digest(`${hash}\n${JSON.stringify(message)}`);
      promptTokens += countChatMessageTokens(message);
      if (stillCached && this.#seen.has(hash)) cachedTokens = promptTokens;
      else stillCached = false;
      this.#remember(hash);
    }
    return { promptTokens, cachedTokens };
  }

  #remember(hash: string): void {
    this.#seen.delete(hash);
    this.#seen.set(hash, true);
    if (this.#seen.size > MAX_ENTRIES) this.#seen.delete(this.#seen.keys().next().value as string);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

const caches = new WeakMap<object, PromptCache>();

/** The prompt cache of one emulator (keyed by its state object). */
export function promptCacheOf(owner: object): PromptCache {
  let cache = caches.get(owner);
  if (!cache) {
    cache = new PromptCache();
    caches.set(owner, cache);
  }
  return cache;
}
