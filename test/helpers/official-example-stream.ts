import type { ChatCompletionChunk } from '../../src/api/types/chat.js';
import { createChunk } from './create-chunk.js';
import { createUsage } from './create-usage.js';

/** The official example stream: created 0 and zero usage first, "" roles and finish reasons, then "stop". */
export function officialExampleStream(): ChatCompletionChunk[] {
  return [
    createChunk({
      choices: [{ delta: { role: 'assistant', content: '' }, finish_reason: '' }],
      created: 0,
      usage: createUsage(),
    }),
    createChunk({
      choices: [{ delta: { role: '', content: 'Hel' }, finish_reason: '' }],
      usage: createUsage({ prompt_tokens: 8, completion_tokens: 1 }),
    }),
    createChunk({
      choices: [{ delta: { role: '', content: 'lo' }, finish_reason: '' }],
      usage: createUsage({ prompt_tokens: 8, completion_tokens: 2 }),
    }),
    createChunk({
      choices: [{ delta: { role: '', content: '!' }, finish_reason: 'stop' }],
      usage: createUsage({ prompt_tokens: 8, completion_tokens: 3 }),
    }),
  ];
}
