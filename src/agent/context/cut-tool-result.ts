import type { ToolMessage } from '../../api/types/chat.js';
import { truncationMarker } from '../../tools/model-texts.js';
import { MESSAGE_FRAMING_TOKENS } from './local-tokens.js';

type Tokenizer = typeof import('gpt-tokenizer');

/** The tool message cut to at most `maxTokens` prompt tokens, and its new size. */
export interface CutToolResult {
  message: ToolMessage;
  tokens: number;
}

/**
 * Cuts a tool result that alone is too big for the window, keeping its beginning and saying, in the
 * text the model reads, how much was removed: the model sees the call answered, not dropped (an agent
 * whose tool result vanishes calls the tool again, forever).
 */
export function cutToolResult(message: ToolMessage, maxTokens: number, tokenizer: Tokenizer): CutToolResult {
  const tokens = tokenizer.encode(message.content);
  const marker = (removed: number) =>
    `\n${truncationMarker(removed, tokens.length, 'tokens', 'svc-agents cut it to fit the context window')}`;
  const room = maxTokens - MESSAGE_FRAMING_TOKENS - tokenizer.countTokens(marker(tokens.length));
  const keep = Math.max(0, Math.min(tokens.length, room));
  const content = tokenizer.decode(tokens.slice(0, keep)) + marker(tokens.length - keep);
  return {
    message: { ...message, content },
    tokens: MESSAGE_FRAMING_TOKENS + tokenizer.countTokens(content),
  };
}
