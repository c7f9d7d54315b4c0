import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { RunInstrumentation, RunInstrumentationInfo } from '../agent/agent-instrumentation.js';
import type { AgentEvent, HandoffEvent } from '../agent/events.js';
import type { CreateChatCompletion } from '../agent/loop/call-model.js';
import type { RunResult } from '../agent/run-result.js';
import { ChatCompletionStream } from '../api/chat/chat-completion-stream.js';
import type { ChatCompletion } from '../api/types/chat.js';
import {
  finishChatSpan,
  type OtelApi,
  recordError,
  type SpanScope,
  startChatSpan,
  startRetrievalSpans,
} from './chat-spans.js';
import { errorType, GenAI, PROVIDER_NAME, toSemconvMessages } from './gen-ai-attributes.js';
import type { OpenTelemetryOptions } from './telemetry-options.js';

/**
 * The spans of one run: `invoke_agent` for the run, `chat` per model request (retries as its events,
 * `retrieval` children for the service's knowledge-base searches), `execute_tool` per function call,
 * `handoff` per hand-off. Contents are recorded only with `recordContents`.
 */
export class RunTracer implements RunInstrumentation {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #options: OpenTelemetryOptions;
  readonly #root: Span;
  readonly #rootContext: Context;
  /** Where chat and retrieval spans start: the same for every model request of the run. */
  readonly #chatScope: SpanScope;
  readonly #tools = new Map<string, Span>();
  readonly #chats = new Set<Span>();
  #chat: Span | undefined;

  constructor(api: OtelApi, tracer: Tracer, options: OpenTelemetryOptions, info: RunInstrumentationInfo) {
    this.#api = api;
    this.#tracer = tracer;
    this.#options = options;
    const agentName = options.agentName ?? info.agentName;
    const attributes: Attributes = {
      ...options.attributes,
      [GenAI.operation]: 'invoke_agent',
      [GenAI.provider]: PROVIDER_NAME,
      [GenAI.agentName]: agentName,
      [GenAI.requestModel]: info.model,
    };
    if (info.resumed) attributes['svc_agents.run.resumed'] = true;
    if (options.recordContents) {
      if (info.instructions) attributes[GenAI.systemInstructions] = info.instructions;
      attributes[GenAI.inputMessages] = toSemconvMessages(info.messages);
    }
    this.#root = tracer.startSpan(
      `invoke_agent ${agentName}`,
      { kind: api.SpanKind.INTERNAL, attributes },
      api.context.active(),
    );
    this.#rootContext = api.trace.setSpan(api.context.active(), this.#root);
    this.#chatScope = { api, tracer, options, parent: this.#rootContext };
    // A resumed run first answers the calls its earlier run left pending.
    for (const call of info.pendingToolCalls) this.#startTool(call.toolCallId, call.toolName, call.arguments);
  }

  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'tool-call':
        this.#startTool(event.toolCallId, event.toolName, event.input);
        break;
      case 'tool-approval-request':
        this.#tools.get(event.toolCallId)?.addEvent('approval_requested');
        break;
      case 'tool-result':
        this.#endTool(event.toolCallId, (span) => {
          if (this.#options.recordContents) span.setAttribute(GenAI.toolResult, stringify(event.output));
        });
        break;
      case 'tool-error':
        this.#endTool(event.toolCallId, (span) => recordError(this.#api, span, event.error));
        break;
      case 'hosted-tool-call':
        this.#hostedCall(event);
        break;
      case 'context-overflow':
        this.#root.addEvent('context_overflow', {
          'svc_agents.context.strategy': event.strategy,
          'svc_agents.context.reason': event.reason,
          'svc_agents.context.tokens_before': event.tokensBefore,
          'svc_agents.context.tokens_after': event.tokensAfter,
          'svc_agents.context.dropped_messages': event.dropped.length,
          'svc_agents.context.cut_tool_results': event.cutToolResults.length,
        });
        break;
      case 'handoff':
        this.#handoff(event);
        break;
    }
  }

  wrapModelCall(create: CreateChatCompletion): CreateChatCompletion {
    return async (params, requestOptions) => {
      const scope = this.#chatScope;
      const span = startChatSpan(scope, params);
      this.#chats.add(span);
      this.#chat = span;
      const retrievals = startRetrievalSpans(scope, params, span);
      const onRetry = requestOptions.onRetry;
      requestOptions.onRetry = (retry) => {
        span.addEvent('retry', {
          'svc_agents.retry.attempt': retry.attempt,
          'svc_agents.retry.delay_ms': retry.delayMs,
          [GenAI.errorType]: errorType(retry.error),
          'http.response.status_code': retry.error.status ?? 0,
        });
        onRetry?.(retry);
      };
      const settle = (completion: ChatCompletion | undefined, error?: unknown) => {
        // One end time for the chat and its retrievals: the SDK derives each span's end from its
        // own millisecond start, so two plain end() calls can put the child 1 ms after its parent.
        const endTime = Date.now();
        for (const retrieval of retrievals) {
          if (error !== undefined) recordError(this.#api, retrieval, error);
          retrieval.end(endTime);
        }
        if (completion) finishChatSpan(span, completion, this.#options.recordContents);
        else recordError(this.#api, span, error);
        this.#endChat(span, endTime);
      };
      let response: ChatCompletion | ChatCompletionStream;
      try {
        response = await create(params, requestOptions);
      } catch (error) {
        settle(undefined, error);
        throw error;
      }
      if (response instanceof ChatCompletionStream) {
        response.whenDone().then(
          (completion) => settle(completion),
          (error: unknown) => settle(undefined, error),
        );
      } else settle(response);
      return response;
    };
  }

  end({ result, error }: { result?: RunResult<unknown>; error?: unknown }): void {
    // A run paused for approvals leaves its waiting calls open: they end with the pause, not as errors.
    const paused = result?.status === 'interrupted';
    for (const span of this.#tools.values()) {
      if (paused) span.addEvent('run_paused');
      else recordError(this.#api, span, error ?? new Error('The run ended before this finished'));
      span.end();
    }
    for (const span of this.#chats) {
      recordError(this.#api, span, error ?? new Error('The run ended before this finished'));
      span.end();
    }
    if (result) {
      this.#root.setAttributes({
        [GenAI.inputTokens]: result.usage.promptTokens,
        [GenAI.outputTokens]: result.usage.completionTokens,
        [GenAI.cachedInputTokens]: result.usage.cachedTokens,
        'svc_agents.run.status': result.status,
        'svc_agents.run.steps': result.steps.length,
      });
      if (result.usage.cost !== undefined)
        this.#root.setAttribute('svc_agents.usage.cost', result.usage.cost);
      if (this.#options.recordContents && result.text) {
        this.#root.setAttribute(
          GenAI.outputMessages,
          JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: result.text }] }]),
        );
      }
    } else recordError(this.#api, this.#root, error);
    this.#root.end();
  }

  #endChat(span: Span, endTime: number): void {
    span.end(endTime);
    this.#chats.delete(span);
  }

  #startTool(toolCallId: string, toolName: string, input: unknown): void {
    if (this.#tools.has(toolCallId)) return;
    const attributes: Attributes = {
      ...this.#options.attributes,
      [GenAI.operation]: 'execute_tool',
      [GenAI.toolName]: toolName,
      [GenAI.toolCallId]: toolCallId,
      [GenAI.toolType]: 'function',
    };
    if (this.#options.recordContents) attributes[GenAI.toolArguments] = stringify(input);
    this.#tools.set(
      toolCallId,
      this.#tracer.startSpan(
        `execute_tool ${toolName}`,
        { kind: this.#api.SpanKind.INTERNAL, attributes },
        this.#rootContext,
      ),
    );
  }

  #endTool(toolCallId: string, finish: (span: Span) => void): void {
    const span = this.#tools.get(toolCallId);
    if (!span) return;
    finish(span);
    span.end();
    this.#tools.delete(toolCallId);
  }

  // A hosted call (web search) ran at the service inside the current chat request.
  #hostedCall(event: Extract<AgentEvent, { type: 'hosted-tool-call' }>): void {
    const parent = this.#chat ? this.#api.trace.setSpan(this.#rootContext, this.#chat) : this.#rootContext;
    const name = event.name ?? event.toolType;
    const attributes: Attributes = {
      [GenAI.operation]: event.toolType === 'retrieval' ? 'retrieval' : 'execute_tool',
      [GenAI.toolName]: name,
      [GenAI.toolCallId]: event.toolCallId,
      [GenAI.toolType]: 'extension',
    };
    if (this.#options.recordContents && event.arguments) attributes[GenAI.toolArguments] = event.arguments;
    this.#tracer.startSpan(`${attributes[GenAI.operation]} ${name}`, { attributes }, parent).end();
  }

  #handoff({ from, to }: HandoffEvent): void {
    const attributes: Attributes = {
      [GenAI.operation]: 'handoff',
      'svc_agents.handoff.to': to,
      'svc_agents.handoff.from': from,
    };
    this.#tracer.startSpan(`handoff ${to}`, { attributes }, this.#rootContext).end();
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
