import { countTokens } from 'gpt-tokenizer';
import { readAudioDuration } from './media/audio-duration.js';
import { highDetailImageTokens, readImageSize } from './media/image-size.js';

/** What a `detail: low` image costs, as the service documents ("roughly 400 tokens"). */
export const LOW_DETAIL_IMAGE_TOKENS = 400;
const VIDEO_TOKENS = 2000;
const AUDIO_TOKENS_PER_SECOND = 25;
// Per-message framing and reply priming, as chat-format tokenizers count them.
const PER_MESSAGE = 4;
const PRIMING = 3;

/**
 * A run the tokenizer's pre-split leaves whole (letters, symbols or whitespace) and that is long enough to
 * matter: byte-pair merging one piece costs time quadratic in its length, so one upload made of a single
 * repeated letter could block every client for minutes.
 */
const LONG_RUN = /[\p{L}\p{M}]{256,}|[^\s\p{L}\p{N}]{256,}|\s{256,}/gu;
/** Long runs are counted in slices of this many characters: linear time, a count within a few tokens. */
const RUN_SLICE = 128;

/** Tokens of a plain text, with the o200k tokenizer, in time linear in its length. */
export function countTextTokens(text: string): number {
  if (!text) return 0;
  // Ordinary text has no such run: counted whole, exactly as the tokenizer does.
  if (text.length < 256) return countTokens(text);
  LONG_RUN.lastIndex = 0;
  let match = LONG_RUN.exec(text);
  if (match === null) return countTokens(text);
  let total = 0;
  let from = 0;
  while (match !== null) {
    if (match.index > from) total += countTokens(text.slice(from, match.index));
    const end = match.index + match[0].length;
    for (let at = match.index; at < end; at += RUN_SLICE)
      total += countTokens(text.slice(at, Math.min(end, at + RUN_SLICE)));
    from = end;
    match = LONG_RUN.exec(text);
  }
  if (from < text.length) total += countTokens(text.slice(from));
  return total;
}

function countChatPart(part: unknown): number {
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
      return countTextTokens(String(p.text ?? ''));
    case 'image_url': {
      const image = p.image_url as { detail?: string; url?: string } | undefined;
      if (image?.detail !== 'high') return LOW_DETAIL_IMAGE_TOKENS;
      // A data URI tells the size; a remote image cannot be fetched (no network), so it gets the typical cost.
      const url = image.url ?? '';
      const size = url.startsWith('data:')
        ? readImageSize(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'))
        : undefined;
      return highDetailImageTokens(size);
    }
    case 'video_url':
      return VIDEO_TOKENS;
    case 'input_audio':
      return audioTokens(String((p.input_audio as { data?: string } | undefined)?.data ?? ''));
    default:
      return countTextTokens(JSON.stringify(p));
  }
}

function audioTokens(dataUri: string): number {
  const base64 = dataUri.slice(dataUri.indexOf(',') + 1);
  const seconds = readAudioDuration(Buffer.from(base64, 'base64')) ?? 1;
  return Math.max(1, Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND));
}

/** Prompt tokens of chat-format messages (and tools, when given). */
export function countChatPromptTokens(messages: unknown[], tools?: unknown[]): number {
  let total = countChatPromptHeadTokens(tools);
  for (const message of messages) total += countChatMessageTokens(message);
  return total;
}

/** Tokens a chat prompt has whatever its messages: the reply priming, and the tools when given. */
export function countChatPromptHeadTokens(tools?: unknown[]): number {
  return PRIMING + (tools && tools.length > 0 ? countTextTokens(JSON.stringify(tools)) : 0);
}

/** Tokens one chat-format message adds to a prompt (its framing included). */
export function countChatMessageTokens(message: unknown): number {
  const m = message as Record<string, unknown>;
  let total = PER_MESSAGE;
  if (typeof m.content === 'string') total += countTextTokens(m.content);
  else if (Array.isArray(m.content)) for (const part of m.content) total += countChatPart(part);
  if (Array.isArray(m.tool_calls)) total += countTextTokens(JSON.stringify(m.tool_calls));
  const reasoning = m.reasoning ?? m.reasoning_content;
  if (typeof reasoning === 'string') total += countTextTokens(reasoning);
  return total;
}

function countMessagesBlock(block: unknown): number {
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return countTextTokens(String(b.text ?? ''));
    case 'image':
      return LOW_DETAIL_IMAGE_TOKENS;
    case 'tool_use':
      return countTextTokens(JSON.stringify({ name: b.name, input: b.input }));
    case 'tool_result':
      return typeof b.content === 'string'
        ? countTextTokens(b.content)
        : Array.isArray(b.content)
          ? b.content.reduce((sum: number, inner) => sum + countMessagesBlock(inner), 0)
          : 0;
    default:
      return countTextTokens(JSON.stringify(b));
  }
}

function countMessagesContent(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (Array.isArray(content))
    return content.reduce((sum: number, block) => sum + countMessagesBlock(block), 0);
  return 0;
}

/**
 * Input tokens of a Messages-format request. The system prompt counts as one more message, so the same text
 * gives the same count as `countChatPromptTokens` with a system message.
 */
export function countMessagesFormatTokens(body: {
  system?: unknown;
  messages: unknown[];
  tools?: unknown[];
}): number {
  let total = PRIMING;
  if (body.system !== undefined && body.system !== '')
    total += PER_MESSAGE + countMessagesContent(body.system);
  for (const message of body.messages) {
    total += PER_MESSAGE + countMessagesContent((message as { content?: unknown }).content);
  }
  if (body.tools && body.tools.length > 0) total += countTextTokens(JSON.stringify(body.tools));
  return total;
}
