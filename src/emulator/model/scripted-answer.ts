import type { ScriptedToolCall } from '../types.js';
import type { ModelAnswer } from './model-answer.js';

let counter = 0;

/** Turns a scripted `{ message, finish_reason?, usage? }` (or a completion's first message) into an answer. */
export function answerFromScript(
  message: {
    content?: string | null;
    tool_calls?: ScriptedToolCall[];
    reasoning?: string;
    reasoning_content?: string;
  },
  finishReason?: string | null,
  usage?: ModelAnswer['usage'],
): ModelAnswer {
  const answer: ModelAnswer = { content: message.content ?? '' };
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (reasoning) answer.reasoning = reasoning;
  const calls = message.tool_calls ?? [];
  const functions = calls.filter((c) => (c.type ?? 'function') === 'function');
  if (functions.length > 0) {
    answer.toolCalls = functions.map((call) => ({
      id: call.id ?? `call_scripted_${++counter}`,
      name: call.function.name,
      arguments:
        typeof call.function.arguments === 'string'
          ? call.function.arguments
          : JSON.stringify(call.function.arguments ?? {}),
    }));
  }
  const hosted = calls.filter((c) => (c.type ?? 'function') !== 'function');
  if (hosted.length > 0) answer.hostedCalls = hosted as never;
  if (finishReason !== undefined) answer.finishReason = finishReason;
  if (usage) answer.usage = usage;
  return answer;
}
