import type { ChatCompletion, ChatMessage } from '../api/types/chat.js';

/** OpenTelemetry GenAI semantic-convention attribute names used by the spans (semconv 1.37+). */
export const GenAI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cachedInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  dataSourceId: 'gen_ai.data_source.id',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  errorType: 'error.type',
} as const;

/** `gen_ai.provider.name` of the svc service. */
export const PROVIDER_NAME = 'svc';

/** Messages in the semconv shape (`role` and `parts`), as a JSON string for `gen_ai.input.messages`. */
export function toSemconvMessages(messages: readonly ChatMessage[]): string {
  return JSON.stringify(
    messages.map((message) => {
      const parts: Array<Record<string, unknown>> = [];
      if (typeof message.content === 'string' && message.content) {
        parts.push({
          type: message.role === 'tool' ? 'tool_call_response' : 'text',
          content: message.content,
        });
      } else if (Array.isArray(message.content)) {
        for (const part of message.content) {
          parts.push(part.type === 'text' ? { type: 'text', content: part.text } : { type: part.type });
        }
      }
      if (message.role === 'tool') parts[0] = { ...parts[0], id: message.tool_call_id };
      if (message.role === 'assistant') {
        for (const call of message.tool_calls ?? []) {
          parts.push({
            type: 'tool_call',
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        }
      }
      return { role: message.role, parts };
    }),
  );
}

/** The answer of a completion as `gen_ai.output.messages`. */
export function toSemconvOutput(completion: ChatCompletion): string {
  return JSON.stringify(
    completion.choices.map((choice) => ({
      role: 'assistant',
      finish_reason: choice.finish_reason ?? '',
      parts: [
        ...(choice.message.content ? [{ type: 'text', content: choice.message.content }] : []),
        ...(choice.message.tool_calls ?? []).map((call) => ({
          type: 'tool_call',
          id: call.id,
          name: call.function?.name,
          arguments: call.function?.arguments,
        })),
      ],
    })),
  );
}

/** `error.type` of a failure: the error class name (e.g. `RateLimitError`), else `_OTHER`. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}
