import type { HostedToolCall } from '../types/chat.js';

/**
 * What one streamed chunk changed, per choice, as reported by `ChatCompletionAccumulator.addWithUpdates`.
 * `callPosition` is the position of the call in `choices[choice].message.tool_calls` of the snapshot.
 */
export type ChunkUpdate =
  | { kind: 'content'; choice: number; text: string }
  | { kind: 'reasoning'; choice: number; text: string }
  | { kind: 'audio'; choice: number; data: string; transcript: string }
  | { kind: 'tool-call-start'; choice: number; callPosition: number; id: string; name: string }
  | {
      kind: 'tool-call-delta';
      choice: number;
      callPosition: number;
      id: string;
      name: string;
      argumentsDelta: string;
    }
  | { kind: 'hosted-tool-call'; choice: number; callPosition: number; call: HostedToolCall }
  | { kind: 'finish'; choice: number; finishReason: string };
