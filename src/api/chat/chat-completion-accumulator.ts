import { randomBytes } from 'node:crypto';
import type {
  ChatCompletion,
  ChatCompletionChoice,
  ChatCompletionChunk,
  ChatCompletionMessage,
  HostedToolCall,
  ToolCall,
  ToolCallDelta,
  Usage,
} from '../types/chat.js';
import type { ChunkUpdate } from './chunk-update.js';

interface CallState {
  call: ToolCall | HostedToolCall;
  hosted: boolean;
  /** The id was made up locally because the model sent none; a real id replaces it. */
  syntheticId: boolean;
}

interface ChoiceState {
  index: number;
  content: string | null;
  reasoning: string | undefined;
  reasoningContent: string | undefined;
  audioData: string[] | undefined;
  audioTranscript: string;
  calls: CallState[];
  byIndex: Map<number, number>;
  byId: Map<string, number>;
  /** Position of the function call that id-less, index-less (legacy) deltas continue; -1 when none. */
  lastOpen: number;
  finishReason: string | null;
}

/**
 * Folds streamed chunks into the `ChatCompletion` the service would have answered without streaming,
 * following what the real service sends: `created: 0` and zero usage on the first chunk, `""` role and
 * finish_reason meaning "not yet", cumulative usage (the last one wins), `reasoning` or `reasoning_content`,
 * audio pieces, several choices by index, tool-call deltas by `index`, legacy deltas without `index` or
 * `id` (continued by id, else the last open call), and hosted `web_search` entries kept apart.
 *
 * @example
 * const acc = new ChatCompletionAccumulator();
 * for await (const chunk of stream) acc.add(chunk);
 * const completion = acc.snapshot();
 */
export class ChatCompletionAccumulator {
  #id = '';
  #created = 0;
  #model = '';
  #usage: Usage | undefined;
  readonly #choices: ChoiceState[] = [];
  #idPrefix: string | undefined;

  /** Folds one chunk in. The lean path used by `ChatCompletionStream`. */
  add(chunk: ChatCompletionChunk): void {
    this.#apply(chunk, undefined);
  }

  /**
   * Folds one chunk in and reports what it changed, per choice, in order: text, reasoning, audio, and for each
   * tool-call delta the position of the accumulated call it went to (`callPosition`) with the call's id and name.
   */
  addWithUpdates(chunk: ChatCompletionChunk): ChunkUpdate[] {
    const updates: ChunkUpdate[] = [];
    this.#apply(chunk, updates);
    return updates;
  }

  /** The completion accumulated so far, as a fresh object the caller may keep or change. */
  snapshot(): ChatCompletion {
    const choices: ChatCompletionChoice[] = [];
    for (const state of this.#choices) {
      if (state) choices.push(toChoice(state));
    }
    const completion: ChatCompletion = {
      id: this.#id,
      object: 'chat.completion',
      created: this.#created,
      model: this.#model,
      choices,
    };
    if (this.#usage) completion.usage = { ...this.#usage };
    return completion;
  }

  #apply(chunk: ChatCompletionChunk, updates: ChunkUpdate[] | undefined): void {
    if (!this.#id && chunk.id) this.#id = chunk.id;
    // The first chunk says created 0; the real time comes later.
    if (!this.#created && chunk.created) this.#created = chunk.created;
    if (!this.#model && chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = chunk.usage;
    const choices = chunk.choices;
    if (!choices) return;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i]!;
      const index = choice.index ?? 0;
      const state = this.#choices[index] ?? this.#newChoice(index);
      const delta = choice.delta;
      if (delta) {
        const content = delta.content;
        if (typeof content === 'string') {
          state.content = state.content === null ? content : state.content + content;
          if (updates && content) updates.push({ kind: 'content', choice: index, text: content });
        }
        if (delta.reasoning) {
          state.reasoning = (state.reasoning ?? '') + delta.reasoning;
          updates?.push({ kind: 'reasoning', choice: index, text: delta.reasoning });
        }
        if (delta.reasoning_content) {
          state.reasoningContent = (state.reasoningContent ?? '') + delta.reasoning_content;
          updates?.push({ kind: 'reasoning', choice: index, text: delta.reasoning_content });
        }
        if (delta.audio) this.#audio(state, delta.audio, updates);
        const toolCalls = delta.tool_calls;
        if (toolCalls) {
          for (let j = 0; j < toolCalls.length; j++) this.#toolCall(state, toolCalls[j]!, updates);
        }
      }
      // "" and a missing finish_reason both mean "still generating".
      const finish = choice.finish_reason;
      if (finish) {
        state.finishReason = finish;
        state.lastOpen = -1;
        updates?.push({ kind: 'finish', choice: index, finishReason: finish });
      }
    }
  }

  #newChoice(index: number): ChoiceState {
    const state: ChoiceState = {
      index,
      content: null,
      reasoning: undefined,
      reasoningContent: undefined,
      audioData: undefined,
      audioTranscript: '',
      calls: [],
      byIndex: new Map(),
      byId: new Map(),
      lastOpen: -1,
      finishReason: null,
    };
    this.#choices[index] = state;
    return state;
  }

  #audio(state: ChoiceState, audio: { data?: string; transcript?: string }, updates?: ChunkUpdate[]): void {
    const data = audio.data ?? '';
    const transcript = audio.transcript ?? '';
    state.audioData ??= [];
    if (data) state.audioData.push(data);
    state.audioTranscript += transcript;
    if (updates && (data || transcript))
      updates.push({ kind: 'audio', choice: state.index, data, transcript });
  }

  #toolCall(state: ChoiceState, delta: ToolCallDelta, updates: ChunkUpdate[] | undefined): void {
    const type = delta.type;
    if (type && type !== 'function') {
      this.#hostedCall(state, delta, updates);
      return;
    }
    const fn = delta.function;
    const name = fn?.name ?? '';
    let position: number | undefined;
    if (delta.index !== undefined && delta.index !== null) {
      position = state.byIndex.get(delta.index);
    } else if (delta.id) {
      position = state.byId.get(delta.id);
    } else if (state.lastOpen >= 0) {
      // Legacy deltas carry neither index nor id: a new name starts a call, anything else continues the last one.
      const last = state.calls[state.lastOpen]!.call;
      if (!(name && last.function.name)) position = state.lastOpen;
    }

    if (position === undefined) {
      position = state.calls.length;
      const synthetic = !delta.id;
      const call: ToolCall = {
        id: synthetic ? this.#syntheticId(state.index, position) : delta.id!,
        type: 'function',
        function: { name, arguments: fn?.arguments ?? '' },
      };
      state.calls.push({ call, hosted: false, syntheticId: synthetic });
      if (delta.index !== undefined && delta.index !== null) state.byIndex.set(delta.index, position);
      if (!synthetic) state.byId.set(call.id, position);
      state.lastOpen = position;
      if (updates) {
        updates.push({
          kind: 'tool-call-start',
          choice: state.index,
          callPosition: position,
          id: call.id,
          name,
        });
        if (call.function.arguments) {
          updates.push({
            kind: 'tool-call-delta',
            choice: state.index,
            callPosition: position,
            id: call.id,
            name,
            argumentsDelta: call.function.arguments,
          });
        }
      }
      return;
    }

    const entry = state.calls[position]!;
    const call = entry.call as ToolCall;
    if (delta.id && entry.syntheticId) {
      call.id = delta.id;
      entry.syntheticId = false;
      state.byId.set(delta.id, position);
    }
    if (name && !call.function.name) call.function.name = name;
    const argumentsDelta = fn?.arguments ?? '';
    if (argumentsDelta) call.function.arguments += argumentsDelta;
    state.lastOpen = position;
    if (updates && (argumentsDelta || name || delta.id)) {
      updates.push({
        kind: 'tool-call-delta',
        choice: state.index,
        callPosition: position,
        id: call.id,
        name: call.function.name,
        argumentsDelta,
      });
    }
  }

  /** Hosted calls (web search) are reports, not requests: each one is kept as its own entry. */
  #hostedCall(state: ChoiceState, delta: ToolCallDelta, updates: ChunkUpdate[] | undefined): void {
    const fn = delta.function ?? {};
    const existing = delta.id ? state.byId.get(delta.id) : undefined;
    let position: number;
    let call: HostedToolCall;
    if (existing !== undefined && state.calls[existing]!.hosted) {
      position = existing;
      call = state.calls[existing]!.call as HostedToolCall;
      if (fn.arguments) call.function.arguments = (call.function.arguments ?? '') + fn.arguments;
      if (fn.results) call.function.results = [...(call.function.results ?? []), ...fn.results];
      if (fn.name && !call.function.name) call.function.name = fn.name;
    } else {
      position = state.calls.length;
      call = { id: delta.id ?? '', type: delta.type!, function: { ...fn } };
      state.calls.push({ call, hosted: true, syntheticId: false });
      if (delta.id) state.byId.set(delta.id, position);
    }
    updates?.push({ kind: 'hosted-tool-call', choice: state.index, callPosition: position, call });
  }

  #syntheticId(choice: number, position: number): string {
    this.#idPrefix ??= `call_${randomBytes(6).toString('hex')}`;
    return `${this.#idPrefix}_${choice}_${position}`;
  }
}

function toChoice(state: ChoiceState): ChatCompletionChoice {
  const message: ChatCompletionMessage = { role: 'assistant', content: state.content };
  if (state.reasoning !== undefined) message.reasoning = state.reasoning;
  if (state.reasoningContent !== undefined) message.reasoning_content = state.reasoningContent;
  if (state.calls.length > 0) {
    message.tool_calls = state.calls.map(({ call }) => ({ ...call, function: { ...call.function } }));
  }
  if (state.audioData)
    message.audio = { data: joinBase64(state.audioData), transcript: state.audioTranscript };
  return { index: state.index, message, finish_reason: state.finishReason };
}

/** Each audio piece is base64 on its own (with its own padding), so pieces are decoded before joining. */
function joinBase64(pieces: string[]): string {
  if (pieces.length === 1) return pieces[0]!;
  return Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'base64'))).toString('base64');
}
