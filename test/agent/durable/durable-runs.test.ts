import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { recordDecision } from '../../../src/agent/durable/record-decision.js';
import type { Store } from '../../../src/agent/durable/store.js';
import { RunConflictError } from '../../../src/agent/errors.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { createDurableTool } from '../../helpers/create-durable-tool.js';
import { answer, toolTurn } from '../../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/** A store that records its writes and, once `crashWhen` says so, stops accepting any (a dead process). */
function createObservedStore(crashWhen?: (writes: number) => boolean) {
  const inner = memoryStore();
  const log = { writes: 0, crashed: false };
  const store: Store = {
    ...inner,
    async updateRun(id, version, record) {
      if (log.crashed) throw new Error('process died');
      const written = await inner.updateRun(id, version, record);
      log.writes++;
      if (crashWhen?.(log.writes)) log.crashed = true;
      return written;
    },
  };
  return { store, inner, log };
}

function createAgent(store: Store, tools: ReturnType<typeof createDurableTool>[]) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', store, tools: tools.map((t) => t.tool) });
}

describe('durable runs', () => {
  describe('when an agent has a store', () => {
    it('should record the run under result.runId and checkpoint after each model turn and tool call', async () => {
      const { store, log } = createObservedStore();
      const a = createDurableTool('alpha');
      const b = createDurableTool('beta');
      env.emu.script([toolTurn(['c1', 'alpha'], ['c2', 'beta']), answer('All done.')]);
      const result = await createAgent(store, [a, b]).run('Go', { runId: 'run-a' });
      expect(result.runId).toBe('run-a');
      const record = await store.getRun('run-a');
      expect(record).toMatchObject({
        status: 'completed',
        agentName: 'agent',
        text: 'All done.',
        interruptions: [],
      });
      // One write before the tools start, one per finished call, one at the end.
      expect(log.writes).toBe(4);
      expect(record?.state.messages).toHaveLength(5);
      expect(a.runs[0]?.runId).toBe('run-a');
      expect(a.runs[0]?.idempotencyKey).toBe('run-a:0:c1');
    });

    it('should generate a run id and give calls with equal ids in two runs different keys', async () => {
      const store = memoryStore();
      const a = createDurableTool('alpha');
      env.emu.script([toolTurn(['same', 'alpha']), answer('1'), toolTurn(['same', 'alpha']), answer('2')]);
      const agent = createAgent(store, [a]);
      const first = await agent.run('Go');
      const second = await agent.run('Go');
      expect(first.runId).not.toBe(second.runId);
      expect(a.runs.map((ctx) => ctx.idempotencyKey)).toEqual([
        `${first.runId}:0:same`,
        `${second.runId}:0:same`,
      ]);
    });

    it('should stream a stored run like any other', async () => {
      const store = memoryStore();
      env.emu.script([toolTurn(['c1', 'alpha']), answer('Streamed.')]);
      const stream = createAgent(store, [createDurableTool('alpha')]).stream('Go', { runId: 'streamed' });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types).toEqual(expect.arrayContaining(['start', 'tool-call', 'tool-result', 'finish']));
      expect((await stream.result).runId).toBe('streamed');
      expect(await store.getRun('streamed')).toMatchObject({ status: 'completed', text: 'Streamed.' });
    });

    it('should refuse a run id that is already stored', async () => {
      const store = memoryStore();
      env.emu.script([answer('1')]);
      const agent = createAgent(store, []);
      await agent.run('Go', { runId: 'taken' });
      await expect(agent.run('Go', { runId: 'taken' })).rejects.toBeInstanceOf(RunConflictError);
    });

    it('should record a failed run with its error and resume it from the checkpoint', async () => {
      const store = memoryStore();
      const a = createDurableTool('alpha');
      env.emu.script([toolTurn(['c1', 'alpha']), { error: { status: 500 } }, answer('Recovered.')]);
      const agent = createAgent(store, [a]);
      await expect(agent.run('Go', { runId: 'r-fail' })).rejects.toThrow();
      expect(await store.getRun('r-fail')).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('500'),
      });
      const resumed = await agent.resume('r-fail');
      expect(resumed).toMatchObject({ status: 'completed', text: 'Recovered.', runId: 'r-fail' });
      expect(a.runs).toHaveLength(1);
      // Resuming a completed run answers from the store.
      expect((await agent.resume('r-fail')).text).toBe('Recovered.');
      expect(chatRequests(env.emu)).toHaveLength(3);
    });
  });

  describe('when the process dies while calls are in flight', () => {
    it('should re-run only idempotent calls and tell the model the others were interrupted', async () => {
      // Writes: 1 before the tools start, 2 after `charge` finished: the process dies right after it.
      const { store, inner, log } = createObservedStore((writes) => writes === 2);
      let releaseSlow!: () => void;
      const slowDone = new Promise<void>((resolve) => {
        releaseSlow = resolve;
      });
      const charge = createDurableTool('charge');
      const lookup = createDurableTool('lookup', {
        idempotent: true,
        execute: () => slowDone.then(() => 'found'),
      });
      const email = createDurableTool('email', { execute: () => slowDone.then(() => 'sent') });
      env.emu.script([toolTurn(['c1', 'charge'], ['c2', 'lookup'], ['c3', 'email'])]);
      const dying = createAgent(store, [charge, lookup, email]).run('Go', { runId: 'crash' });
      await expect.poll(() => log.crashed).toBe(true);
      const stored = await inner.getRun('crash');
      expect(stored?.inFlight).toEqual(['c2', 'c3']);

      const lookup2 = createDurableTool('lookup', { idempotent: true, execute: () => 'found again' });
      const email2 = createDurableTool('email');
      env.emu.script([answer('Done after restart.')]);
      const result = await createAgent(inner, [charge, lookup2, email2]).resume('crash');
      releaseSlow();
      await dying.catch(() => undefined);

      expect(result.status).toBe('completed');
      expect(charge.runs).toHaveLength(1);
      expect(lookup2.runs).toHaveLength(1);
      expect(lookup2.runs[0]?.idempotencyKey).toBe(lookup.runs[0]?.idempotencyKey);
      expect(email2.runs).toHaveLength(0);
      const toolMessages = result.messages.filter((message) => message.role === 'tool');
      expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
      expect(toolMessages[1]?.content).toBe('found again');
      expect(toolMessages[2]?.content).toMatch(/interrupted.*may or may not have taken effect/);
    });
  });

  describe('when two processes resume the same run at once', () => {
    it('should let exactly one win and give the other a RunConflictError', async () => {
      const store = memoryStore();
      const a = createDurableTool('alpha');
      env.emu.script([toolTurn(['c1', 'alpha']), { error: { status: 500 } }, answer('Once.')]);
      await createAgent(store, [a])
        .run('Go', { runId: 'race' })
        .catch(() => undefined);
      const results = await Promise.allSettled([
        createAgent(store, [a]).resume('race'),
        createAgent(store, [a]).resume('race'),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(RunConflictError);
      expect((await store.getRun('race'))?.status).toBe('completed');
    });
  });

  describe('when a call needs approval', () => {
    it('should pause in the store and run the call once after agent.approve', async () => {
      const store = memoryStore();
      const pay = createDurableTool('pay', { needsApproval: true });
      env.emu.script([toolTurn(['p1', 'pay']), answer('Paid.')]);
      const paused = await createAgent(store, [pay]).run('Pay it', { runId: 'appr' });
      expect(paused.status).toBe('interrupted');
      expect(await store.getRun('appr')).toMatchObject({
        status: 'interrupted',
        interruptions: [{ toolCallId: 'p1', toolName: 'pay' }],
      });
      // Another agent instance (another process) approves.
      const result = await createAgent(store, [pay]).approve('appr', 'p1');
      expect(result).toMatchObject({ status: 'completed', text: 'Paid.' });
      expect(pay.runs).toHaveLength(1);
    });

    it('should record the run as running in the same write as its last decision, not before', async () => {
      const store = memoryStore();
      const pay = createDurableTool('pay', { needsApproval: true });
      env.emu.script([toolTurn(['p1', 'pay'], ['p2', 'pay']), answer('Paid.')]);
      await createAgent(store, [pay]).run('Pay both', { runId: 'two' });
      const first = await recordDecision(store, 'two', 'p1', { approved: true });
      expect(first).toMatchObject({ status: 'interrupted', interruptions: [{ toolCallId: 'p2' }] });
      // A waiter reading the store never sees "interrupted" with nothing left to decide.
      const last = await recordDecision(store, 'two', 'p2', { approved: false });
      expect(last).toMatchObject({ status: 'running', interruptions: [], version: first.version + 1 });
      expect(pay.runs).toHaveLength(0);
    });

    it('should tell the model the reason of agent.reject', async () => {
      const store = memoryStore();
      const pay = createDurableTool('pay', { needsApproval: true });
      env.emu.script([toolTurn(['p1', 'pay']), answer('Not paid.')]);
      const agent = createAgent(store, [pay]);
      await agent.run('Pay it', { runId: 'rej' });
      const result = await agent.reject('rej', 'p1', 'too expensive');
      expect(result.status).toBe('completed');
      expect(pay.runs).toHaveLength(0);
      expect(result.messages.find((m) => m.role === 'tool')?.content).toContain('too expensive');
    });
  });

  describe('when runs share a session', () => {
    it('should prepend the history and append each run once, also across an approval pause', async () => {
      const store = memoryStore();
      const pay = createDurableTool('pay', { needsApproval: true });
      const agent = createAgent(store, [pay]);
      env.emu.script([answer('Hello Ann.'), toolTurn(['p1', 'pay']), answer('Paid, Ann.')]);
      await agent.run('I am Ann', { session: 'user-42' });
      const paused = await agent.run('Pay my bill', { session: 'user-42', runId: 's-pay' });
      expect(chatRequests(env.emu)[1]?.messages.slice(0, 3)).toMatchObject([
        { role: 'user', content: 'I am Ann' },
        { role: 'assistant', content: 'Hello Ann.' },
        { role: 'user', content: 'Pay my bill' },
      ]);
      expect(paused.status).toBe('interrupted');
      // The paused turn's user message is kept; its unanswered tool call is not.
      expect((await store.getItems('user-42')).map((item) => item.role)).toEqual([
        'user',
        'assistant',
        'user',
      ]);
      await agent.approve('s-pay', 'p1');
      await agent.resume('s-pay');
      const items = await store.getItems('user-42');
      expect(items.map((item) => item.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(items.at(-1)).toMatchObject({ content: 'Paid, Ann.' });
    });

    it('should refuse a session without a store', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      await expect(agent.run('Hi', { session: 's' })).rejects.toThrow(
        'session: needs the agent option store',
      );
    });
  });
});
