// Heap after GC of a memoryStore holding chat sessions, with its default bounds and without bounds.
// Each session is what the web chat keeps for a short conversation: three turns, each a user message and
// an answer appended to the session, a run record whose state holds the turn, an event log of 150
// streamed events, and two small shared values (the session's active run, a stop flag).
//   node --expose-gc --import tsx scripts/memory-store-heap.ts [sessions=10000]
// Prints a table (markdown) of heap after GC at checkpoints, for both stores.
import type { ChatMessage } from '../src/api/types/chat.js';
import { defaultMemoryStoreOptions, memoryStore } from '../src/stores/memory-store.js';

const sessions = Number(process.argv[2] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const TURNS = 3;
const EVENTS_PER_RUN = 150;

function heapMb(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed / 1e6;
}

const words =
  'the forecast for Paris says light rain in the morning and sun after noon with a mild breeze'.split(' ');
const sentence = (seed: number, length: number) =>
  Array.from({ length }, (_, index) => words[(seed + index) % words.length]).join(' ');

async function fillSession(store: ReturnType<typeof memoryStore>, index: number): Promise<void> {
  const sessionId = `session-${index}`;
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const runId = `run-${index}-${turn}`;
    const user: ChatMessage = { role: 'user', content: `Question ${turn}: ${sentence(index + turn, 20)}` };
    const answer: ChatMessage = { role: 'assistant', content: sentence(index * 7 + turn, 90) };
    await store.createRun({
      id: runId,
      agentName: 'chat',
      status: 'running',
      state: { $schemaVersion: 1, messages: [...history, user] },
      interruptions: [],
      session: { id: sessionId, start: history.length, appended: history.length },
    });
    await store.setValueIf(`active:${sessionId}`, turn * 2, runId);
    const events = Array.from({ length: EVENTS_PER_RUN }, (_, id) =>
      JSON.stringify({ type: 'text_delta', delta: ` ${words[(index + id) % words.length]}`, runId }),
    );
    await store.appendRunEvents(runId, 0, events, { ttlMs: 10 * 60_000 });
    await store.commitRun(
      runId,
      1,
      {
        id: runId,
        agentName: 'chat',
        status: 'completed',
        state: { $schemaVersion: 1, messages: [...history, user, answer] },
        interruptions: [],
        text: answer.content as string,
        session: { id: sessionId, start: history.length, appended: history.length + 2 },
      },
      { sessionId, items: [user, answer] },
    );
    await store.setValueIf(`active:${sessionId}`, turn * 2 + 1, undefined);
    await store.setValueIf(`stop:${runId}`, 0, '1', { ttlMs: 60_000 });
    history.push(user, answer);
  }
}

const signed = (mb: number) => `${mb < 0.05 ? (mb > -0.05 ? '' : '-') : '+'}${Math.abs(mb).toFixed(1)}`;

async function measure(label: string, store: ReturnType<typeof memoryStore>) {
  const checkpoints = [0, 1000, 2000, 5000, sessions].filter(
    (count, index, all) => count <= sessions && all.indexOf(count) === index,
  );
  const baseline = heapMb();
  const rows: string[] = [];
  let filled = 0;
  for (const checkpoint of checkpoints) {
    for (; filled < checkpoint; filled++) await fillSession(store, filled);
    const heap = heapMb();
    rows.push(
      `| ${label} | ${checkpoint.toLocaleString('en')} | ${heap.toFixed(1)} MB | ${signed(heap - baseline)} MB |`,
    );
  }
  await store.close();
  return rows;
}

const rows = [
  ...(await measure('defaults', memoryStore())),
  ...(await measure(
    'unbounded',
    memoryStore({ maxSessions: 1e9, maxRuns: 1e9, maxValues: 1e9, idleTtlMs: 1e12 }),
  )),
];
console.log(
  `memoryStore heap after GC, ${TURNS} turns and ${EVENTS_PER_RUN} events per turn per session; defaults ${JSON.stringify(defaultMemoryStoreOptions)}; node ${process.version}\n`,
);
console.log('| store | sessions | heap after GC | growth over the empty store |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
