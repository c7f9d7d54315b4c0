import type {
  ChatCompletionChunk,
  ChatCompletionChunkChoice,
  ToolCallDelta,
} from '../../src/api/types/chat.js';

type ChunkDelta = ChatCompletionChunkChoice['delta'];

/** Fields of a chunk to set; `delta` and `finish_reason` are a shorthand for one streamed choice. */
export type ChunkOverrides = Partial<Omit<ChatCompletionChunk, 'choices'>> & {
  /** Choices taken as given, each with `index: 0` and an empty `delta` unless set. */
  choices?: Array<Partial<ChatCompletionChunkChoice>>;
  /** The delta of the single choice, used when `choices` is not given. */
  delta?: ChunkDelta;
  /** The finish reason of the single choice; `""` as the service streams it until the last chunk. */
  finish_reason?: ChatCompletionChunkChoice['finish_reason'];
};

/**
 * A chunk as the service streams it. Without `choices` it holds one choice built from `delta` and
 * `finish_reason` (default `""`); with `choices` they are taken as given, so a missing finish reason stays
 * missing.
 * @example createChunk({ delta: { role: '', content: 'Hi' }, finish_reason: 'stop' })
 */
export function createChunk(overrides: ChunkOverrides = {}): ChatCompletionChunk {
  const { choices, delta = {}, finish_reason = '', ...fields } = overrides;
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'svc-3.5-flash',
    choices: choices
      ? choices.map((choice) => ({ index: 0, delta: {}, ...choice }))
      : [{ index: 0, delta, finish_reason }],
    ...fields,
  };
}

/** A delta that streams one tool-call fragment. */
export function callDelta(fields: ToolCallDelta): ChunkDelta {
  return { role: '', tool_calls: [fields] };
}
