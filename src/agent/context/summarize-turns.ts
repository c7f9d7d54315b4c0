import type { SvcClient } from '../../api/svc-client.js';
import type { ChatMessage, SystemMessage } from '../../api/types/chat.js';

/** How a summary message starts: the agent recognises its own summaries by it and folds them into the next. */
export const SUMMARY_HEADER = 'Summary of the earlier conversation:\n';

/** True for a summary message written by the `summarize` strategy. */
export function isSummaryMessage(message: ChatMessage): message is SystemMessage {
  return message.role === 'system' && message.content.startsWith(SUMMARY_HEADER);
}

/** Options of `summarizeMessages`. */
export interface SummarizeOptions {
  client: SvcClient;
  model: string;
  instructions: string;
  maxTokens: number;
  /** Most characters of transcript sent (its end is kept: the latest turns matter most). */
  maxChars: number;
  /** Aborts the summary request; absent when the run has no signal. */
  signal: AbortSignal | undefined;
}

/**
 * Asks the model for a summary of `messages` (an earlier summary among them is folded in) and returns
 * the system message that replaces them.
 */
export async function summarizeMessages(
  messages: readonly ChatMessage[],
  options: SummarizeOptions,
): Promise<SystemMessage> {
  let transcript = messages.map(toTranscriptLine).join('\n');
  if (transcript.length > options.maxChars) transcript = `...${transcript.slice(-options.maxChars)}`;
  const completion = await options.client.chat.completions.create(
    {
      model: options.model,
      messages: [
        { role: 'system', content: options.instructions },
        { role: 'user', content: transcript },
      ],
      max_tokens: options.maxTokens,
    },
    { signal: options.signal },
  );
  const summary = completion.choices[0]?.message.content?.trim() || '(nothing to keep)';
  return { role: 'system', content: `${SUMMARY_HEADER}${summary}` };
}

function toTranscriptLine(message: ChatMessage): string {
  if (isSummaryMessage(message)) return `[earlier summary] ${message.content.slice(SUMMARY_HEADER.length)}`;
  const text =
    typeof message.content === 'string'
      ? message.content
      : Array.isArray(message.content)
        ? message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ')
        : '';
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const calls = message.tool_calls.map((call) => `${call.function.name}(${call.function.arguments ?? ''})`);
    return `assistant: ${text ? `${text} ` : ''}[called ${calls.join(', ')}]`;
  }
  return `${message.role}: ${text}`;
}
