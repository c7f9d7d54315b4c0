import { ChatCompletionStream, updatesPerRead } from '../../api/chat/chat-completion-stream.js';
import type {
  ChatCompletion,
  ChatCompletionCreateParams,
  ChatCompletionMessage,
  HostedToolCall,
} from '../../api/types/chat.js';
import type { RequestOptions } from '../../api/types/request-options.js';
import type { AgentEvent, HostedToolCallEvent } from '../events.js';
import type { StepTimer } from '../step-timing.js';
import type { EagerToolStarter } from './eager-tool-starter.js';
import { isHostedToolCall } from './to-assistant-message.js';

/** The one client method the loop needs: `client.chat.completions.create`, streamed or not. */
export type CreateChatCompletion = (
  params: ChatCompletionCreateParams,
  options: ModelRequestOptions,
) => Promise<ChatCompletion | ChatCompletionStream>;

/** The request options of a model call, and when a request budget in front of it let the request go. */
export interface ModelRequestOptions extends RequestOptions {
  /** Called when a shared request budget admits the request (only when there is one). */
  onSent?: (() => void) | undefined;
}

/** Options of `callModel`. */
export interface CallModelOptions {
  create: CreateChatCompletion;
  params: ChatCompletionCreateParams;
  /** Aborts the request; absent when the run has no signal. */
  signal: AbortSignal | undefined;
  /** Absent when nobody observes the run: no event is built. */
  emit?: ((event: AgentEvent) => void) | undefined;
  /** Ids for function calls the service left without one (streams get them from the accumulator). */
  generateId: () => string;
  /** Sees the streamed tool-call updates, to start safe tools before the stream ends. */
  eager?: EagerToolStarter | undefined;
  /** Records when the request was sent, answered and retried (kept on the step for the run inspector). */
  timer?: StepTimer | undefined;
}

/**
 * Makes one model request and emits its pieces as they arrive: text, reasoning, audio, and function-call
 * starts and argument fragments (ids as the accumulator resolves them, legacy deltas included).
 * Arguments are never parsed here: only the finished completion is acted on. A non-streamed answer
 * emits the same events, one delta each, so a UI is written once.
 */
export async function callModel({
  create,
  params,
  signal,
  emit,
  generateId,
  eager,
  timer,
}: CallModelOptions): Promise<ChatCompletion> {
  const response = await create(
    params,
    timer
      ? { signal, onSent: () => timer.sent(), onRetry: (retry) => timer.retried(retry, params.model) }
      : { signal },
  );
  if (!isStream(response)) {
    const message = response.choices[0]?.message;
    // Ids are fixed before any event names them, so events, assistant message and tool messages agree.
    for (const call of message?.tool_calls ?? []) {
      if (!call.id && !isHostedToolCall(call)) call.id = generateId();
    }
    if (emit) emitWholeMessage(message, emit);
    return response;
  }
  // Each chunk is folded once, into the stream's own accumulator (its iterators do it).
  // Nobody observes the run: the stream drains itself, without update objects.
  if (emit === undefined && eager === undefined) return response.finalCompletion();
  try {
    return await foldStream(response, emit, eager, timer);
  } catch (error) {
    // A failed turn's early results are never used: the retried turn runs its calls again.
    eager?.discard();
    throw error;
  }
}

async function foldStream(
  response: ChatCompletionStream,
  emit: CallModelOptions['emit'],
  eager: EagerToolStarter | undefined,
  timer: StepTimer | undefined,
): Promise<ChatCompletion> {
  const reportedHosted = new Set<number>();
  // One await per network read: the agent needs the updates only, and a read often holds several chunks.
  for await (const updates of updatesPerRead(response)) {
    if (timer && updates.length > 0) timer.firstToken();
    for (const update of updates) {
      // The agent works on choice 0 (it never asks for n > 1).
      if (update.choice !== 0) continue;
      switch (update.kind) {
        case 'content':
          emit?.({ type: 'text-delta', text: update.text });
          break;
        case 'reasoning':
          emit?.({ type: 'reasoning-delta', text: update.text });
          break;
        case 'audio':
          emit?.(audioDelta(update.data, update.transcript));
          break;
        case 'tool-call-start':
          emit?.({ type: 'tool-input-start', toolCallId: update.id, toolName: update.name });
          break;
        case 'tool-call-delta':
          if (emit && update.argumentsDelta) {
            emit({ type: 'tool-input-delta', toolCallId: update.id, delta: update.argumentsDelta });
          }
          break;
        case 'hosted-tool-call':
          // The service sends a hosted call whole, in the stream's first chunk: report it as it comes.
          if (emit && !reportedHosted.has(update.callPosition)) {
            reportedHosted.add(update.callPosition);
            emit(toHostedToolCallEvent(update.call));
          }
          break;
        default:
          break;
      }
      // After the event: a fragment is reported before the tool it completes starts.
      eager?.observe(update);
    }
  }
  return response.accumulator.snapshot();
}

function isStream(value: ChatCompletion | ChatCompletionStream): value is ChatCompletionStream {
  return value instanceof ChatCompletionStream;
}

function emitWholeMessage(
  message: ChatCompletionMessage | undefined,
  emit: (event: AgentEvent) => void,
): void {
  if (!message) return;
  const calls = message.tool_calls ?? [];
  // Same order as a stream: hosted calls come in the first chunk, function calls after the text.
  for (const call of calls) if (isHostedToolCall(call)) emit(toHostedToolCallEvent(call));
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (reasoning) emit({ type: 'reasoning-delta', text: reasoning });
  if (message.content) emit({ type: 'text-delta', text: message.content });
  if (message.audio) emit(audioDelta(message.audio.data, message.audio.transcript));
  for (const call of calls) {
    if (isHostedToolCall(call)) continue;
    emit({ type: 'tool-input-start', toolCallId: call.id, toolName: call.function.name ?? '' });
    const args = call.function.arguments ?? '';
    if (args) emit({ type: 'tool-input-delta', toolCallId: call.id, delta: args });
  }
}

function audioDelta(data: string, transcript: string): AgentEvent {
  return transcript ? { type: 'audio-delta', data, transcript } : { type: 'audio-delta', data };
}

/** The event reporting a call the service ran itself (web search, retrieval). */
function toHostedToolCallEvent(call: HostedToolCall): HostedToolCallEvent {
  const event: HostedToolCallEvent = { type: 'hosted-tool-call', toolType: call.type, toolCallId: call.id };
  if (call.function.name !== undefined) event.name = call.function.name;
  if (call.function.arguments !== undefined) event.arguments = call.function.arguments;
  if (call.function.results !== undefined) event.results = call.function.results;
  return event;
}
