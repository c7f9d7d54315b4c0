import type { ChatCompletionChoice, ChatCompletionMessage, HostedToolCall, ToolCall } from '../types/chat.js';

/** One accumulated call of a choice. */
export interface CallState {
  call: ToolCall | HostedToolCall;
  hosted: boolean;
  /** The id was made up locally because the model sent none; a real id replaces it. */
  syntheticId: boolean;
}

/** Everything accumulated for one choice so far. */
export interface ChoiceState {
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

/** An empty choice state. */
export function createChoiceState(index: number): ChoiceState {
  return {
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
}

/** The `ChatCompletionChoice` a choice state stands for, as fresh objects. */
export function toChoice(state: ChoiceState): ChatCompletionChoice {
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
