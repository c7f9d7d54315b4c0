/** How an answer is rendered for one request. */
export interface RenderContext {
  id: string;
  model: string;
  created: number;
  /** Number of choices (`n`). */
  n: number;
  promptTokens: number;
  reasoningField: 'reasoning' | 'reasoning_content';
  /** Set when the request asks an audio model for audio. */
  audio?: { format: string; voice: string };
  toolFinishReason: { stream: string; nonStream: string };
  wordsPerChunk: number;
  /** `svc-1-8k` streams tool calls without `index`, with `id: ""` and `type: ""`. */
  legacyToolDeltas: boolean;
}
