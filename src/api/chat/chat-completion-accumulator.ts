import { randomBytes } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChoice, ChatCompletionChunk, Usage } from '../types/chat.js';
import { type ChoiceState, createChoiceState, toChoice } from './choice-state.js';
import type { ChunkUpdate } from './chunk-update.js';
import { mergeToolCallDelta } from './merge-tool-call-delta.js';

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
   * The updates are appended to `updates` when given (several chunks into one list), else to a new list.
   */
  addWithUpdates(chunk: ChatCompletionChunk, updates: ChunkUpdate[] = []): ChunkUpdate[] {
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
          for (let j = 0; j < toolCalls.length; j++)
            mergeToolCallDelta(state, toolCalls[j]!, updates, this.#makeId);
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
    const state = createChoiceState(index);
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

  readonly #makeId = (choice: number, position: number): string => {
    this.#idPrefix ??= `call_${randomBytes(6).toString('hex')}`;
    return `${this.#idPrefix}_${choice}_${position}`;
  };
}
