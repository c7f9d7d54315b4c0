import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import type { Store } from '../../../src/agent/durable/store.js';
import type { InterruptedRunResult } from '../../../src/agent/run-result.js';
import { RunState } from '../../../src/agent/run-state.js';
import type { ChatMessage } from '../../../src/api/types/chat.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { type ProxiedStore, proxiedStoreBackends } from '../../helpers/proxied-store-backends.js';
import { answer, toolTurn } from '../../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const model = 'svc-3.5-flash';

interface HistoryCase {
  name: string;
  skip?: boolean;
  open(): Promise<{ store: Store; proxied?: ProxiedStore; cleanup(): Promise<void> }>;
}

const cases: HistoryCase[] = [
  { name: 'memoryStore', open: async () => ({ store: memoryStore(), cleanup: async () => {} }) },
  ...proxiedStoreBackends.map((backend) => ({
    name: `${backend.name}Store`,
    skip: !backend.available,
    open: async () => {
      const proxied = await backend.open();
      return { store: proxied.store, proxied, cleanup: () => proxied.cleanup() };
    },
  })),
];

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks something up.',
  parameters: z.object({}),
  execute: async () => 'LOOKED-UP',
});

const pay = defineTool({
  name: 'pay',
  description: 'Pays.',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'PAID',
});

/** `count` earlier turns of a conversation, about 200 bytes each. */
function history(count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: `Earlier question ${i}: ${'x'.repeat(160)}` }
      : { role: 'assistant', content: `Earlier answer ${i}: ${'y'.repeat(160)}` },
  );
}

/** The store, with the size of every record it is asked to write (what is sent per checkpoint). */
function measureWrites(store: Store) {
  const sizes: number[] = [];
  const measured: Store = {
    ...store,
    updateRun: (id, version, record) => {
      sizes.push(JSON.stringify(record).length);
      return store.updateRun(id, version, record);
    },
  };
  if (store.commitRun) {
    const commitRun = store.commitRun;
    measured.commitRun = (id, version, record, append) => {
      sizes.push(JSON.stringify(record).length + JSON.stringify(append.items).length);
      return commitRun(id, version, record, append);
    };
  }
  return { store: measured, sizes };
}

/** The store, failing the `failAt`-th checkpoint (1-based) with a store error. */
function failCheckpoint(store: Store, failAt: number): Store {
  let writes = 0;
  return {
    ...store,
    updateRun: (id, version, record) => {
      writes++;
      if (writes === failAt) return Promise.reject(new Error('store unreachable'));
      return store.updateRun(id, version, record);
    },
  };
}

for (const historyCase of cases) {
  describe.skipIf(historyCase.skip)(`a session's history in run records on ${historyCase.name}`, () => {
    let store: Store;
    let proxied: ProxiedStore | undefined;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, proxied, cleanup } = await historyCase.open());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('should write checkpoints whose size does not grow with the session', async () => {
      const largest: Record<number, number> = {};
      for (const turns of [10, 500]) {
        const session = `s${turns}`;
        await store.addItems(session, history(turns));
        const { store: measured, sizes } = measureWrites(store);
        const agent = new Agent({ client: env.client, model, store: measured, tools: [lookup] });
        env.emu.script([toolTurn(['c1', 'lookup']), answer('Found it.')]);
        const result = await agent.run('Look it up', { session });
        expect(result.state.messages).toHaveLength(turns + 4);
        const record = await store.getRun(result.runId);
        expect(record?.state.messages).toEqual([
          { role: 'user', content: 'Look it up' },
          expect.objectContaining({ role: 'assistant' }),
          expect.objectContaining({ role: 'tool', tool_call_id: 'c1' }),
          expect.objectContaining({ role: 'assistant', content: 'Found it.' }),
        ]);
        largest[turns] = Math.max(...sizes);
      }
      expect(largest[500]).toBeLessThan(largest[10]! * 1.5);
    });

    it('should resume a failed run with the session`s history in front, once', async () => {
      await store.addItems('chat', history(4));
      // Checkpoints: the first before the tools start, the second after the lookup (it fails).
      const failing = failCheckpoint(store, 2);
      env.emu.script([toolTurn(['c1', 'lookup']), answer('Found it.')]);
      await expect(
        new Agent({ client: env.client, model, store: failing, tools: [lookup] }).run('Look it up', {
          runId: 'r1',
          session: 'chat',
        }),
      ).rejects.toThrow('store unreachable');
      const agent = new Agent({ client: env.client, model, store, tools: [lookup] });
      const resumed = await agent.resume('r1');
      expect(resumed.text).toBe('Found it.');
      const sent = chatRequests(env.emu).at(-1)?.messages as ChatMessage[];
      expect(sent.slice(0, 5)).toEqual([...history(4), { role: 'user', content: 'Look it up' }]);
      expect(sent).toHaveLength(7);
      expect(resumed.state.messages).toHaveLength(8);
      expect(await store.getItems('chat')).toHaveLength(8);
    });

    it('should continue an approved run without writing the session`s history into its record', async () => {
      await store.addItems('chat', history(4));
      const agent = new Agent({ client: env.client, model, store, tools: [pay] });
      env.emu.script([toolTurn(['c1', 'pay']), answer('Paid.')]);
      const paused = (await agent.run('Pay it', { runId: 'p1', session: 'chat' })) as InterruptedRunResult;
      expect(paused.status).toBe('interrupted');
      // The state travels as JSON, as it would to a browser and back.
      const approved = RunState.fromJSON(JSON.stringify(paused.state), agent).approve('c1');
      const done = await agent.run(approved, { runId: 'p1' });
      expect(done.text).toBe('Paid.');
      const record = await store.getRun('p1');
      expect(record?.session?.historyOmitted).toBe(true);
      expect(record?.state.messages).toEqual([
        { role: 'user', content: 'Pay it' },
        expect.objectContaining({ role: 'assistant' }),
        expect.objectContaining({ role: 'tool', tool_call_id: 'c1' }),
        expect.objectContaining({ role: 'assistant', content: 'Paid.' }),
      ]);
      expect(await store.getItems('chat')).toHaveLength(8);
    });

    it('should continue an approved run whose state was read from its record with the session`s history in front', async () => {
      await store.addItems('chat', history(4));
      const agent = new Agent({ client: env.client, model, store, tools: [pay] });
      env.emu.script([toolTurn(['c1', 'pay']), answer('Paid.')]);
      await agent.run('Pay it', { runId: 'p2', session: 'chat' });
      // The state as a web handler would hand it out: from the stored record, which leaves the history out.
      const stored = await store.getRun('p2');
      const approved = RunState.fromJSON(JSON.stringify(stored?.state), agent).approve('c1');
      const done = await agent.run(approved, { runId: 'p2' });
      expect(done.text).toBe('Paid.');
      const sent = chatRequests(env.emu).at(-1)?.messages as ChatMessage[];
      expect(sent.slice(0, 5)).toEqual([...history(4), { role: 'user', content: 'Pay it' }]);
      const record = await store.getRun('p2');
      expect(record?.session?.historyOmitted).toBe(true);
      expect(record?.state.messages).toHaveLength(4);
      expect(await store.getItems('chat')).toHaveLength(8);
    });

    it('should resume an older record that holds the whole history', async () => {
      const earlier = history(2);
      const input: ChatMessage = { role: 'user', content: 'Go on' };
      await store.addItems('chat', earlier);
      await store.createRun({
        id: 'old',
        agentName: 'agent',
        status: 'running',
        state: {
          $schemaVersion: 1,
          turn: 0,
          messages: [...earlier, input],
          steps: [],
          usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 },
          pendingToolCalls: [],
          ledger: { $schemaVersion: 1, entries: [] },
          outputRepairs: 0,
        },
        interruptions: [],
        session: { id: 'chat', start: 2, appended: 2, input: [input], firstStep: 0, done: 0 },
      });
      env.emu.script([answer('Went on.')]);
      const resumed = await new Agent({ client: env.client, model, store }).resume('old');
      expect(resumed.text).toBe('Went on.');
      expect(chatRequests(env.emu).at(-1)?.messages).toEqual([...earlier, input]);
      expect(await store.getItems('chat')).toEqual([
        ...earlier,
        input,
        expect.objectContaining({ role: 'assistant', content: 'Went on.' }),
      ]);
    });

    it.skipIf(historyCase.name === 'memoryStore')(
      'should leave no per-run key in the session once runs end',
      async () => {
        const agent = new Agent({ client: env.client, model, store });
        env.emu.script([answer('One.'), answer('Two.')]);
        await agent.run('First', { session: 'chat' });
        await agent.run('Second', { session: 'chat' });
        expect(await store.getItems('chat')).toHaveLength(4);
        const { redis, postgres, prefix, schema } = proxied!.direct;
        if (redis) expect(await redis.keys(`${prefix}session-keys:*`)).toEqual([]);
        if (postgres) {
          const { rows } = await postgres.query(`SELECT count(*)::int AS n FROM "${schema}".session_keys`);
          expect(rows[0].n).toBe(0);
        }
      },
    );
  });
}
