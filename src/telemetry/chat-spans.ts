import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { ChatCompletion, ChatCompletionCreateParams } from '../api/types/chat.js';
import { errorType, GenAI, PROVIDER_NAME, toSemconvMessages, toSemconvOutput } from './gen-ai-attributes.js';
import type { OpenTelemetryOptions } from './telemetry-options.js';

/** The OpenTelemetry API module. */
export type OtelApi = typeof import('@opentelemetry/api');

/** Where new spans of a run go: the API, the tracer, the user's options and the parent context. */
export interface SpanScope {
  api: OtelApi;
  tracer: Tracer;
  options: OpenTelemetryOptions;
  parent: Context;
}

/** Starts the `chat` span of one model request, with its request attributes (and messages on opt-in). */
export function startChatSpan(scope: SpanScope, params: ChatCompletionCreateParams): Span {
  const attributes: Attributes = {
    ...scope.options.attributes,
    [GenAI.operation]: 'chat',
    [GenAI.provider]: PROVIDER_NAME,
    [GenAI.requestModel]: params.model,
  };
  if (typeof params.max_tokens === 'number') attributes[GenAI.requestMaxTokens] = params.max_tokens;
  if (typeof params.temperature === 'number') attributes[GenAI.requestTemperature] = params.temperature;
  if (typeof params.top_p === 'number') attributes[GenAI.requestTopP] = params.top_p;
  if (scope.options.recordContents) attributes[GenAI.inputMessages] = toSemconvMessages(params.messages);
  return scope.tracer.startSpan(
    `chat ${params.model}`,
    { kind: scope.api.SpanKind.CLIENT, attributes },
    scope.parent,
  );
}

/** Sets the response attributes of a `chat` span: id, model, finish reasons, token usage (answer on opt-in). */
export function finishChatSpan(
  span: Span,
  completion: ChatCompletion,
  recordContents: boolean | undefined,
): void {
  span.setAttributes({
    [GenAI.responseId]: completion.id,
    [GenAI.responseModel]: completion.model,
    [GenAI.finishReasons]: completion.choices.map((choice) => choice.finish_reason ?? ''),
  });
  const usage = completion.usage;
  if (usage) {
    span.setAttributes({
      [GenAI.inputTokens]: usage.prompt_tokens,
      [GenAI.outputTokens]: usage.completion_tokens,
      [GenAI.cachedInputTokens]: usage.cached_tokens ?? 0,
    });
  }
  if (recordContents) span.setAttribute(GenAI.outputMessages, toSemconvOutput(completion));
}

/** One `retrieval` span per knowledge base the request lets the service search, children of its `chat` span. */
export function startRetrievalSpans(
  scope: SpanScope,
  params: ChatCompletionCreateParams,
  chat: Span,
): Span[] {
  const parent = scope.api.trace.setSpan(scope.parent, chat);
  return (params.tools ?? [])
    .filter((tool) => tool.type === 'retrieval')
    .map((tool) => {
      const storeId =
        (tool.function as { options?: { vector_store_id?: string } }).options?.vector_store_id ?? '';
      const attributes = {
        [GenAI.operation]: 'retrieval',
        [GenAI.provider]: PROVIDER_NAME,
        [GenAI.dataSourceId]: storeId,
      };
      return scope.tracer.startSpan(
        `retrieval ${storeId}`,
        { kind: scope.api.SpanKind.INTERNAL, attributes },
        parent,
      );
    });
}

/** Marks a span failed: `error.type`, an exception event (name and message only) and an error status. */
export function recordError(api: OtelApi, span: Span, error: unknown): void {
  span.setAttribute(GenAI.errorType, errorType(error));
  if (error instanceof Error) span.recordException({ name: error.name, message: error.message });
  span.setStatus({
    code: api.SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
