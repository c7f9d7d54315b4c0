import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import type { ContextOverflowEvent } from '../../../src/agent/context/context-overflow-event.js';
import type { ContextWindowOptions } from '../../../src/agent/context/context-window-options.js';
import { findUnpairedToolCall } from '../../../src/agent/context/conversation-turns.js';
import { defaultContextWindows } from '../../../src/api/context-windows.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import type { ChatMessage } from '../../../src/api/types/chat.js';
import { type Emulator, startEmulator } from '../../../src/emulator/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';

// A context manager must carry a 200-turn conversation on the 8K model, tool results from a few tokens to
// several times the window, on every strategy. The emulator answers 400 "Input too long" past the window.
const MODEL = 'svc-1-8k';
const TURNS = 200;
const INSTRUCTIONS =
  'You are a librarian. Use fetch_document for documents and search_catalog for the catalog.';
// Words of the tool results in turn order (a word is about 2 tokens): small, large, over the window.
const SIZES = [5, 300, 1200, 40, 5000, 80, 2500, 12];

let emu: Emulator;
let client: SvcClient;
beforeAll(async () => {
  emu = await startEmulator({ model: { reasoningModels: [] } });
  client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

function createTools() {
  let call = 0;
  const result = () => {
    const words = SIZES[call++ % SIZES.length] ?? 1;
    return Array.from({ length: words }, (_, i) => `p${(i * 31 + call) % 1009}`).join(' ');
  };
  return [
    defineTool({
      name: 'fetch_document',
      description: 'Fetches a document',
      parameters: z.object({}),
      execute: async () => result(),
    }),
    defineTool({
      name: 'search_catalog',
      description: 'Searches the catalog',
      parameters: z.object({}),
      execute: async () => result(),
    }),
  ];
}

const asks = [
  (turn: number) => `Please fetch document ${turn}`,
  (turn: number) => `Search the catalog for item ${turn}`,
  (turn: number) => `Fetch the document and search the catalog about topic ${turn}`,
  (turn: number) => `Thanks, noted point ${turn}.`,
];

const keepLastTwoTurns: ContextWindowOptions['strategy'] = ({ messages, currentTurnStart }) => {
  let start = currentTurnStart;
  for (let i = currentTurnStart - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      start = i;
      break;
    }
  }
  return messages.slice(start);
};

describe('a 200-turn conversation under the context window', () => {
  it.each([
    ['truncate', 'truncate'],
    ['summarize', 'summarize'],
    ['custom', keepLastTwoTurns],
  ] as const)(
    'should never exceed the window and keep every tool call paired (%s)',
    async (_name, strategy) => {
      emu.reset();
      const agent = new Agent({
        client,
        model: MODEL,
        instructions: INSTRUCTIONS,
        tools: createTools(),
        contextWindow: { strategy, summary: { maxTokens: 300 } },
      });
      const window = defaultContextWindows[MODEL] as number;
      let messages: ChatMessage[] = [];
      const overflows: ContextOverflowEvent[] = [];
      let maxPrompt = 0;
      let steps = 0;
      for (let turn = 0; turn < TURNS; turn++) {
        const ask = (asks[turn % asks.length] as (turn: number) => string)(turn);
        const stream = agent.stream([...messages, { role: 'user', content: ask }], {
          stream: turn % 2 === 0,
        });
        for await (const event of stream) {
          if (event.type === 'context-overflow') overflows.push(event);
          if (event.type === 'finish-step') {
            maxPrompt = Math.max(maxPrompt, event.usage.promptTokens);
            steps += 1;
          }
        }
        messages = (await stream.result).messages;
        expect(messages.at(-1)?.role).toBe('assistant');
      }
      const bodies = emu
        .requests()
        .filter((r) => r.path.endsWith('/chat/completions'))
        .map((r) => r.body as { messages: ChatMessage[]; max_tokens?: number });
      const agentBodies = bodies.filter((body) => body.messages[0]?.content === INSTRUCTIONS);
      expect(agentBodies).toHaveLength(steps);
      for (const body of agentBodies) {
        expect(findUnpairedToolCall(body.messages)).toBeUndefined();
        expect(body.messages.some((m) => m.role === 'user')).toBe(true);
      }
      // Every request was answered (the emulator refuses any over its window), and none needed the retry.
      expect(overflows.filter((event) => event.reason === 'rejected')).toEqual([]);
      expect(maxPrompt).toBeLessThanOrEqual(window);
      expect(overflows.length).toBeGreaterThan(5);
      expect(overflows.some((event) => event.cutToolResults.length > 0)).toBe(true);
      const counts = emu.requests().filter((r) => r.path === '/v1/token/count').length;
      console.log(
        `${_name}: ${TURNS} turns, ${steps} model requests, max prompt ${maxPrompt}/${window} tokens, ` +
          `${overflows.length} overflows, ${counts} count requests, ${bodies.length - agentBodies.length} summary requests`,
      );
    },
    120_000,
  );
});
