import type { ContentPart } from '../types/chat.js';

/** A `text` content part. */
export type TextPart = Extract<ContentPart, { type: 'text' }>;

/** Builds a `text` part. */
export function textPart(text: string): TextPart {
  return { type: 'text', text };
}
