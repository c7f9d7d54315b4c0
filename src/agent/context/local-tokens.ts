import type { ChatMessage, ContentPart } from '../../api/types/chat.js';
import { loadOnce } from '../../core/load-module.js';

type Tokenizer = typeof import('gpt-tokenizer');

// The tokenizer's tables are large: they load on the first run that manages its context, not on import.
/** The bundled tokenizer (gpt-tokenizer, o200k), loaded once on first use. */
export const loadTokenizer: () => Promise<Tokenizer> = loadOnce(() => import('gpt-tokenizer'));

// Chat-format framing: each message costs a few tokens beyond its text, and every prompt a few more.
/** Tokens a message adds beyond its content. */
export const MESSAGE_FRAMING_TOKENS = 4;
/** Tokens every prompt adds (reply priming). */
export const PROMPT_PRIMING_TOKENS = 3;
const IMAGE_TOKENS = { low: 400, high: 1100 } as const;
const VIDEO_TOKENS = 2000;
const AUDIO_TOKENS = 500;

/** Estimates the tokens a message adds to a prompt (framing included) with the bundled tokenizer. */
export function estimateMessageTokens(message: ChatMessage, { countTokens }: Tokenizer): number {
  const count = (text: string | null | undefined) => (text ? countTokens(text) : 0);
  let total = MESSAGE_FRAMING_TOKENS;
  if (typeof message.content === 'string') total += count(message.content);
  else if (Array.isArray(message.content))
    for (const part of message.content) total += partTokens(part, count);
  if (message.role === 'assistant') {
    if (message.tool_calls && message.tool_calls.length > 0)
      total += count(JSON.stringify(message.tool_calls));
    total += count(message.reasoning ?? message.reasoning_content);
  }
  return total;
}

function partTokens(part: ContentPart, count: (text: string) => number): number {
  switch (part.type) {
    case 'text':
      return count(part.text);
    case 'image_url':
      return part.image_url.detail === 'high' ? IMAGE_TOKENS.high : IMAGE_TOKENS.low;
    case 'video_url':
      return VIDEO_TOKENS;
    case 'input_audio':
      return AUDIO_TOKENS;
    default:
      return count(JSON.stringify(part));
  }
}
