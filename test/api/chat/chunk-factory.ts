import type { ChatCompletionChunk, ChatCompletionChunkChoice, Usage } from '../../../src/api/types/chat.js';

/** A chunk as the service sends it, with one or more choices. */
export function createChunk(
  choices: Array<Partial<ChatCompletionChunkChoice>>,
  overrides: Partial<ChatCompletionChunk> = {},
): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'svc-3.5-flash',
    choices: choices.map((choice) => ({ index: 0, delta: {}, ...choice })),
    ...overrides,
  };
}

/** Usage with the given counts. */
export function createUsage(prompt: number, completion: number): Usage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The official example stream: created 0 and zero usage first, "" roles and finish reasons, then "stop". */
export function officialExampleStream(): ChatCompletionChunk[] {
  return [
    createChunk([{ delta: { role: 'assistant', content: '' }, finish_reason: '' }], {
      created: 0,
      usage: createUsage(0, 0),
    }),
    createChunk([{ delta: { role: '', content: 'Hel' }, finish_reason: '' }], { usage: createUsage(8, 1) }),
    createChunk([{ delta: { role: '', content: 'lo' }, finish_reason: '' }], { usage: createUsage(8, 2) }),
    createChunk([{ delta: { role: '', content: '!' }, finish_reason: 'stop' }], { usage: createUsage(8, 3) }),
  ];
}
