/**
 * Prompt-cache share of a 20-turn tool-using conversation on the 8K model, against the emulator (which
 * reports `usage.cached_tokens` for a repeated prompt prefix, as the service does). Compares the agent's
 * context strategies with the usual "drop just enough" sliding window (trimTarget 1) and with no context
 * management at all. Writes bench/results/prompt-cache.md and prompt-cache.json.
 * Run: npx tsx bench/prompt-cache/cached-share.ts
 */
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { startEmulator } from '../../src/emulator/index.js';
import {
  Agent,
  type ChatMessage,
  type ContextWindowOptions,
  defineTool,
  SvcClient,
} from '../../src/index.js';

const MODEL = 'svc-1-8k';
const TURNS = 20;
const SIZES = [60, 400, 150, 900, 30, 600];

interface Row {
  name: string;
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  share: number;
  maxPrompt: number;
  overflows: number;
  failed: string | undefined;
}

const emu = await startEmulator({ model: { reasoningModels: [] } });
const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });

async function converse(name: string, contextWindow: ContextWindowOptions | undefined): Promise<Row> {
  emu.reset();
  let call = 0;
  const fetchDocument = defineTool({
    name: 'fetch_document',
    description: 'Fetches a document',
    parameters: z.object({}),
    execute: async () =>
      Array.from({ length: SIZES[call++ % SIZES.length] ?? 1 }, (_, i) => `p${(i * 31 + call) % 1009}`).join(
        ' ',
      ),
  });
  const agent = new Agent({
    client,
    model: MODEL,
    instructions: 'You are a librarian. Use fetch_document when asked for a document. Answer briefly.',
    tools: [fetchDocument],
    ...(contextWindow ? { contextWindow } : {}),
  });
  const row: Row = {
    name,
    requests: 0,
    promptTokens: 0,
    cachedTokens: 0,
    share: 0,
    maxPrompt: 0,
    overflows: 0,
    failed: undefined,
  };
  let messages: ChatMessage[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      const ask = turn % 3 === 2 ? `Thanks, noted ${turn}.` : `Please fetch document ${turn}`;
      const stream = agent.stream([...messages, { role: 'user', content: ask }], { stream: false });
      for await (const event of stream) {
        if (event.type === 'context-overflow') row.overflows += 1;
        if (event.type !== 'finish-step') continue;
        row.requests += 1;
        row.promptTokens += event.usage.promptTokens;
        row.cachedTokens += event.usage.cachedTokens;
        row.maxPrompt = Math.max(row.maxPrompt, event.usage.promptTokens);
      }
      messages = (await stream.result).messages;
    }
  } catch (error) {
    row.failed = error instanceof Error ? error.message.slice(0, 120) : String(error);
  }
  row.share = row.promptTokens > 0 ? row.cachedTokens / row.promptTokens : 0;
  return row;
}

const rows = [
  await converse('truncate (trimTarget 0.7, default)', { strategy: 'truncate' }),
  await converse('summarize (trimTarget 0.7)', { strategy: 'summarize', summary: { maxTokens: 200 } }),
  await converse('sliding window (truncate, trimTarget 1)', { strategy: 'truncate', trimTarget: 1 }),
  await converse('no context management', undefined),
];
await client.close();
await emu.close();

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const table = [
  '| strategy | requests | prompt tokens | cached tokens | cached share | max prompt | overflows | outcome |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.requests} | ${r.promptTokens} | ${r.cachedTokens} | ${percent(r.share)} | ${r.maxPrompt} | ${r.overflows} | ${r.failed ? `failed: ${r.failed}` : `${TURNS} turns`} |`,
  ),
].join('\n');
const report = `# Prompt-cache share, ${TURNS}-turn conversation (${new Date().toISOString().slice(0, 10)})

\`npx tsx bench/prompt-cache/cached-share.ts\`: one conversation of ${TURNS} user turns on \`${MODEL}\` (8192-token
window) with a \`fetch_document\` tool whose results cycle through ${SIZES.join(', ')} words, against the emulator.
Cached share = cached prompt tokens / prompt tokens over every model request. The agent trims to \`trimTarget\`
of the budget so the next turns resend the same prefix; a sliding window that drops just enough changes the
prefix on almost every turn once full.

${table}
`;
await writeFile(new URL('../results/prompt-cache.md', import.meta.url), report);
await writeFile(
  new URL('../results/prompt-cache.json', import.meta.url),
  `${JSON.stringify(rows, null, 2)}\n`,
);
console.log(report);
