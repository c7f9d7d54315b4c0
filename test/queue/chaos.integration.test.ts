import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/agent/durable/store.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { chaosWorkerConfig, spawnWorker } from '../helpers/spawn-chaos-worker.js';

const RUNS = 60;
const WORKERS = 3;
const KILL_EVERY_MS = 1_200;
/** A scripted tool turn: three parallel calls of different durations. */
const chaosTurn = {
  message: {
    content: '',
    tool_calls: ['quick', 'slow_lookup', 'slow_write'].map((name) => ({
      function: { name, arguments: '{}' },
    })),
  },
};

interface LogLine {
  phase: 'start' | 'end';
  tool: string;
  key: string;
  pid: number;
}

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`chaos on ${backend.name}`, () => {
    let emu: Emulator;
    let dir: string;
    let ns: QueueNamespace;
    beforeAll(async () => {
      emu = await startEmulator({ port: 0 });
      dir = await mkdtemp(join(tmpdir(), 'svc-chaos-'));
      ns = backend.create();
    });
    afterAll(async () => {
      await ns?.cleanup();
      await emu?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('should complete every run with SIGKILLed workers, losing nothing and re-running only idempotent in-flight calls', async () => {
      // Three tool turns per run, plus spares for model turns repeated after a kill.
      emu.script(Array.from({ length: RUNS * 3 + 120 }, () => chaosTurn));
      const config = chaosWorkerConfig(backend, ns, emu, join(dir, 'tools.log'), 4);
      const workers = await Promise.all(
        Array.from({ length: WORKERS }, () => spawnWorker(config, emu.apiKey)),
      );
      const queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
      const started = Date.now();
      const killed = new Set<number>();
      try {
        const runIds = await Promise.all(
          Array.from({ length: RUNS }, (_, i) => queue.enqueue('chaos', `Job ${i}`, { runId: `chaos-${i}` })),
        );
        const allDone = async () =>
          (await Promise.all(runIds.map((id) => ns.store.getRun(id)))).every(
            (r) => r?.status === 'completed',
          );
        while (!(await allDone())) {
          if (Date.now() - started > 100_000) throw new Error('runs did not complete in 100 s');
          await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
          if (await allDone()) break;
          const index = Math.floor(Math.random() * workers.length);
          workers[index]!.kill('SIGKILL');
          killed.add(workers[index]!.pid!);
          workers[index] = await spawnWorker(config, emu.apiKey);
        }
        const records = (await Promise.all(runIds.map((id) => ns.store.getRun(id)))) as RunRecord[];
        const lines = (await readFile(config.log, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as LogLine);
        const report = checkInvariants(records, lines, killed);
        console.info(
          `chaos on ${backend.name}: ${RUNS} runs in ${Date.now() - started} ms, ${killed.size} SIGKILLs, ` +
            `${report.interrupted} calls answered as interrupted, ${report.idempotentReruns} idempotent re-runs (${report.lockTakeovers} after a lock expiry)`,
        );
        expect(killed.size).toBeGreaterThan(0);
      } finally {
        for (const worker of workers) worker.kill('SIGKILL');
        await queue.close();
      }
    }, 150_000);
  });
}

/** Asserts the chaos invariants on the final records and the tool log; answers figures for the report. */
function checkInvariants(records: RunRecord[], lines: LogLine[], killed: Set<number>) {
  let interrupted = 0;
  for (const record of records) {
    expect(record.status).toBe('completed');
    const messages = record.state.messages as ChatMessage[];
    // user + 3 x (assistant with 3 calls + 3 answers): nothing lost, nothing doubled.
    expect(messages).toHaveLength(13);
    expect(messages[0]).toMatchObject({ role: 'user' });
    for (let turn = 0; turn < 3; turn++) {
      const assistant = messages[1 + turn * 4]!;
      expect(assistant.role).toBe('assistant');
      const ids = (assistant as { tool_calls: Array<{ id: string }> }).tool_calls.map((call) => call.id);
      const answers = messages.slice(2 + turn * 4, 5 + turn * 4) as Array<{
        role: string;
        tool_call_id: string;
        content: string;
      }>;
      // Each tool_call answered exactly once, right after its turn.
      expect(answers.map((answer) => answer.tool_call_id)).toEqual(ids);
      for (const answer of answers) {
        expect(answer.role).toBe('tool');
        if (/interrupted/.test(answer.content)) interrupted++;
      }
    }
  }
  const starts = new Map<string, LogLine[]>();
  for (const line of lines) {
    if (line.phase !== 'start') continue;
    starts.set(line.key, [...(starts.get(line.key) ?? []), line]);
  }
  let idempotentReruns = 0;
  let lockTakeovers = 0;
  for (const [key, runs] of starts) {
    if (runs.length === 1) continue;
    // Only an idempotent tool's call may run twice: after its process was killed mid-call, or when a worker
    // starved of CPU let its BullMQ lock expire and another took the run over (the store's version check
    // then stops the slower one; a non-idempotent call in flight is answered "interrupted", never re-run).
    expect(runs[0]!.tool, `${key} ran ${runs.length} times`).toBe('slow_lookup');
    for (const earlier of runs.slice(0, -1)) if (!killed.has(earlier.pid)) lockTakeovers++;
    idempotentReruns += runs.length - 1;
  }
  return { interrupted, idempotentReruns, lockTakeovers };
}
