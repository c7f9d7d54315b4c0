import type {
  AssistantMessage,
  ChatCompletionMessage,
  HostedToolCall,
  ToolCall,
} from '../../api/types/chat.js';

/** One model answer split into what goes back to the service and what the agent acts on. */
export interface AssistantTurn {
  /** The message to append to the conversation, as it came (exact argument strings, reasoning). */
  message: AssistantMessage;
  /** Function calls to run locally, with ids (generated where the model sent none). */
  functionCalls: ToolCall[];
  /** Calls the service ran itself (web search, retrieval). */
  hostedCalls: HostedToolCall[];
  /** The answer text (the audio transcript when an audio model sent no text). */
  text: string;
  /** The reasoning, whichever field carried it. */
  reasoning: string | undefined;
}

const HOSTED_TYPES = new Set(['web_search', 'retrieval']);

/** True for a `tool_calls` entry the service ran itself. */
export function isHostedToolCall(call: ToolCall | HostedToolCall): call is HostedToolCall {
  return Boolean(call.type) && (HOSTED_TYPES.has(call.type) || call.type !== 'function');
}

/**
 * Turns a completion message into the assistant message sent back. Hosted entries are left out of its
 * `tool_calls`: the service already ran them inside this turn, and a `tool_calls` entry is a promise of
 * a `tool` message, which a hosted call never gets; keeping it would make the next request invalid
 * for any validator that pairs every entry with its answer. They are kept in the step (`hostedToolCalls`).
 * Empty ids get `generateId()` so the assistant message and the `tool` messages agree.
 */
export function toAssistantMessage(message: ChatCompletionMessage, generateId: () => string): AssistantTurn {
  const functionCalls: ToolCall[] = [];
  const hostedCalls: HostedToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (isHostedToolCall(call)) {
      hostedCalls.push(call);
      continue;
    }
    functionCalls.push({
      id: call.id || generateId(),
      type: 'function',
      function: { name: call.function.name ?? '', arguments: call.function.arguments ?? '' },
    });
  }
  const transcript = message.audio?.transcript;
  const text = message.content || transcript || '';
  const assistant: AssistantMessage = {
    role: 'assistant',
    // Audio answers may carry only a transcript: it is what the model said, so it goes back as content.
    content: !message.content && transcript ? transcript : message.content,
  };
  if (functionCalls.length > 0) assistant.tool_calls = functionCalls;
  if (message.reasoning !== undefined) assistant.reasoning = message.reasoning;
  if (message.reasoning_content !== undefined) assistant.reasoning_content = message.reasoning_content;
  return {
    message: assistant,
    functionCalls,
    hostedCalls,
    text,
    reasoning: message.reasoning ?? message.reasoning_content,
  };
}
