import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { createRunRecord } from '../../../src/agent/durable/run-with-store.js';
import type { Store } from '../../../src/agent/durable/store.js';
import { GuardrailTripwireError, RunStateError } from '../../../src/agent/errors.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { defineGuardrail } from '../../../src/agent/guardrails/guardrail.js';
import { handoff, handoffFilters } from '../../../src/agent/handoffs/handoff.js';
import { RunState } from '../../../src/agent/run-state.js';
import { fileStore } from '../../../src/stores/file-store.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { createDurableTool } from '../../helpers/create-durable-tool.js';
import { answer } from '../../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

// Durable runs (a store) meeting the other features: guardrails, agents as tools, handoffs, the context
// window, dynamic tools and early-started tools.

const env = useAgentTestEnv();
const model = 'svc-3.5-flash';

const call = (id: string, name: string, args = '{}') => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: args } }] },
});

/** A store whose writes fail (a dead process) once `crashWhen` says so, until `revive()`. */
function crashingStore(crashWhen: (record: { inFlight?: string[] }) => boolean) {
  const inner = memoryStore();
  let crashed = false;
  let crashedOnce = false;
  const store: Store = {
    ...inner,
    async updateRun(id, version, record) {
      if (crashed) throw new Error('process died');
      const written = await inner.updateRun(id, version, record);
      if (!crashedOnce && crashWhen(record)) {
        crashed = true;
        crashedOnce = true;
      }
      return written;
    },
  };
  return { store, inner, revive: () => (crashed = false) };
}

const noPasswords = defineGuardrail({
  name: 'no_passwords',
  runInParallel: false,
  execute: ({ text }: { text: string }) => ({ tripwire: /password/.test(text) }),
});

describe('durable runs with other features', () => {
  describe('when the agent has input guardrails', () => {
    it('should check the input of a run whose first turn starts through resume (a queued run)', async () => {
      const store = memoryStore();
      const agent = new Agent({ client: env.client, model, name: 'support', inputGuardrails: [noPasswords] });
      env.emu.script([answer('The admin password is hunter2')]);
      // What `queue.enqueue` does; the worker then calls `agent.resume(runId)`.
      await createRunRecord({
        store,
        agentName: 'support',
        runId: 'queued',
        state: new RunState({ messages: [{ role: 'user', content: 'tell me the admin password' }] }),
        session: undefined,
        fresh: true,
      });
      const error = await agent.resume('queued', { store }).catch((caught: unknown) => caught);
      expect(GuardrailTripwireError.isInstance(error)).toBe(true);
      expect(chatRequests(env.emu)).toHaveLength(0);
      expect(await store.getRun('queued')).toMatchObject({ status: 'failed', inputTripwire: 'no_passwords' });
    });

    it('should refuse to resume a run its input guardrail stopped', async () => {
      const store = memoryStore();
      const agent = new Agent({ client: env.client, model, store, inputGuardrails: [noPasswords] });
      env.emu.script([answer('The admin password is hunter2')]);
      await expect(agent.run('tell me the admin password', { runId: 'tripped' })).rejects.toBeInstanceOf(
        GuardrailTripwireError,
      );
      expect(await store.getRun('tripped')).toMatchObject({ status: 'failed' });
      await expect(agent.resume('tripped')).rejects.toBeInstanceOf(RunStateError);
      expect(chatRequests(env.emu)).toHaveLength(0);
    });

    it('should still resume a run that passed its guardrails without checking them again', async () => {
      const store = memoryStore();
      let checks = 0;
      const counted = defineGuardrail({
        name: 'counted',
        runInParallel: false,
        execute: () => {
          checks++;
          return { tripwire: false };
        },
      });
      const refund = createDurableTool('refund', { needsApproval: true });
      const agent = new Agent({
        client: env.client,
        model,
        store,
        tools: [refund.tool],
        inputGuardrails: [counted],
      });
      env.emu.script([call('c1', 'refund'), answer('Refunded.')]);
      expect((await agent.run('refund please', { runId: 'ok' })).status).toBe('interrupted');
      const done = await agent.approve('ok', 'c1');
      expect(done).toMatchObject({ status: 'completed', text: 'Refunded.' });
      expect(checks).toBe(1);
    });
  });

  describe('when a call waiting for approval is inside an agent used as a tool', () => {
    const createParent = (store: Store) => {
      const danger = createDurableTool('danger', { needsApproval: true });
      const sub = new Agent({ client: env.client, model, name: 'sub', tools: [danger.tool] });
      const parent = new Agent({
        client: env.client,
        model,
        name: 'parent',
        store,
        tools: [sub.asTool({ name: 'ask_sub', description: 'Asks the sub-agent.' })],
      });
      return { parent, danger };
    };

    it('should approve it through agent.approve and run it once', async () => {
      const store = memoryStore();
      const { parent, danger } = createParent(store);
      env.emu.script([
        call('p1', 'ask_sub', '{"input":"go"}'),
        call('s1', 'danger'),
        answer('Sub done.'),
        answer('Parent done.'),
      ]);
      const paused = await parent.run('go', { runId: 'nested' });
      expect(paused.status).toBe('interrupted');
      expect((await store.getRun('nested'))?.interruptions).toEqual([
        { toolCallId: 's1', toolName: 'danger', input: {} },
      ]);
      const done = await parent.approve('nested', 's1');
      expect(done).toMatchObject({ status: 'completed', text: 'Parent done.' });
      expect(danger.runs.map((ctx) => ctx.idempotencyKey)).toEqual([expect.stringContaining('s1')]);
    });

    it('should reject it through agent.reject with the reason reaching the sub-agent', async () => {
      const store = memoryStore();
      const { parent, danger } = createParent(store);
      env.emu.script([
        call('p1', 'ask_sub', '{"input":"go"}'),
        call('s1', 'danger'),
        answer('Sub gave up.'),
        answer('Parent done.'),
      ]);
      await parent.run('go', { runId: 'nested-no' });
      const done = await parent.reject('nested-no', 's1', 'not today');
      expect(done.status).toBe('completed');
      expect(danger.runs).toEqual([]);
      const toolMessages = chatRequests(env.emu)
        .flatMap((request) => request.messages as Array<{ role: string; content: string }>)
        .filter((message) => message.role === 'tool');
      expect(toolMessages.some((message) => message.content.includes('not today'))).toBe(true);
    });
  });

  describe('when a run with a session has its messages shortened', () => {
    it('should append every run item once when the context window drops older turns', async () => {
      const store = memoryStore();
      const agent = new Agent({
        client: env.client,
        model,
        store,
        contextWindow: { strategy: 'truncate', maxInputTokens: 300, counting: 'local' },
      });
      const long = 'lorem ipsum dolor sit amet '.repeat(8);
      const overflows: AgentEvent[] = [];
      for (let i = 0; i < 6; i++) {
        env.emu.script([answer(`answer ${i} ${long}`)]);
        await agent.run(`question ${i} ${long}`, {
          session: 'window',
          onEvent: (event) => event.type === 'context-overflow' && overflows.push(event),
        });
      }
      expect(overflows.length).toBeGreaterThan(0);
      const items = await store.getItems('window');
      expect(
        items.map((item) => `${item.role}:${String(item.content).split(' ').slice(0, 2).join(' ')}`),
      ).toEqual([0, 1, 2, 3, 4, 5].flatMap((i) => [`user:question ${i}`, `assistant:answer ${i}`]));
    });

    it('should append every run item once when a handoff filter removes the tool history', async () => {
      const store = memoryStore();
      const lookup = createDurableTool('lookup');
      const billing = new Agent({ client: env.client, model, name: 'billing' });
      const triage = new Agent({
        client: env.client,
        model,
        name: 'triage',
        store,
        tools: [lookup.tool],
        handoffs: [handoff(billing, { inputFilter: handoffFilters.removeToolHistory })],
      });
      env.emu.script([
        call('x1', 'lookup'),
        answer('Order found.'),
        call('t1', 'transfer_to_billing'),
        answer('Refund issued.'),
      ]);
      await triage.run('where is my order', { session: 's1' });
      await triage.run('refund it please', { session: 's1' });
      const items = await store.getItems('s1');
      expect(items.map((item) => [item.role, item.content])).toEqual([
        ['user', 'where is my order'],
        ['assistant', ''],
        ['tool', 'lookup done'],
        ['assistant', 'Order found.'],
        ['user', 'refund it please'],
        ['assistant', ''],
        ['tool', expect.stringContaining('billing')],
        ['assistant', 'Refund issued.'],
      ]);
    });

    it('should append the rest once after a pause for approval following a filtered handoff', async () => {
      const store = memoryStore();
      const refund = createDurableTool('refund', { needsApproval: true });
      const billing = new Agent({ client: env.client, model, name: 'billing', tools: [refund.tool] });
      const triage = new Agent({
        client: env.client,
        model,
        name: 'triage',
        store,
        handoffs: [handoff(billing, { inputFilter: handoffFilters.removeToolHistory })],
      });
      env.emu.script([call('t1', 'transfer_to_billing'), call('r1', 'refund'), answer('Refunded.')]);
      const paused = await triage.run('refund order 7', { session: 'pause', runId: 'p1' });
      expect(paused.status).toBe('interrupted');
      expect((await store.getItems('pause')).map((item) => item.role)).toEqual(['user', 'assistant', 'tool']);
      const done = await triage.approve('p1', 'r1');
      expect(done).toMatchObject({ status: 'completed', text: 'Refunded.', lastAgent: 'billing' });
      const items = await store.getItems('pause');
      expect(items.map((item) => [item.role, item.content])).toEqual([
        ['user', 'refund order 7'],
        ['assistant', ''],
        ['tool', expect.stringContaining('billing')],
        ['assistant', ''],
        ['tool', 'refund done'],
        ['assistant', 'Refunded.'],
      ]);
      expect(refund.runs).toHaveLength(1);
    });

    it('should keep only the repaired answer of a run an output guardrail sent back', async () => {
      const store = memoryStore();
      const noSecrets = defineGuardrail({
        name: 'no_secrets',
        repair: true,
        execute: ({ text }: { text: string }) => ({ tripwire: /secret/.test(text), reason: 'no secrets' }),
      });
      const agent = new Agent({ client: env.client, model, store, outputGuardrails: [noSecrets] });
      env.emu.script([answer('The secret code is 42.'), answer('I cannot share that.')]);
      const result = await agent.run('what is the code?', { session: 'repair' });
      expect(result.text).toBe('I cannot share that.');
      expect((await store.getItems('repair')).map((item) => [item.role, item.content])).toEqual([
        ['user', 'what is the code?'],
        ['assistant', 'I cannot share that.'],
      ]);
    });
  });

  describe('when a process stops while an idempotent tool runs', () => {
    it('should run the call again on resume after a handoff (the tools of the agent in charge)', async () => {
      const { store, inner, revive } = crashingStore((record) => (record.inFlight ?? []).includes('b1'));
      const lookup = createDurableTool('lookup', { idempotent: true });
      const billing = new Agent({ client: env.client, model, name: 'billing', tools: [lookup.tool] });
      const triage = new Agent({ client: env.client, model, name: 'triage', handoffs: [billing], store });
      env.emu.script([call('t1', 'transfer_to_billing'), call('b1', 'lookup'), answer('Found it.')]);
      await expect(triage.run('where is my order', { runId: 'h1' })).rejects.toThrow('process died');
      expect((await inner.getRun('h1'))?.inFlight).toEqual(['b1']);
      revive();
      const resumed = await triage.resume('h1');
      const result = resumed.steps.flatMap((step) => step.toolResults).find((r) => r.toolCallId === 'b1');
      expect(result).toMatchObject({ status: 'ok', content: 'lookup done' });
      expect(resumed).toMatchObject({ status: 'completed', text: 'Found it.', lastAgent: 'billing' });
    });

    it('should run the call again on resume when tools is a function', async () => {
      const { store, revive } = crashingStore((record) => (record.inFlight ?? []).includes('c1'));
      const lookup = createDurableTool('lookup', { idempotent: true });
      const agent = new Agent({ client: env.client, model, store, tools: () => [lookup.tool] });
      env.emu.script([call('c1', 'lookup'), answer('Found it.')]);
      await expect(agent.run('where is my order', { runId: 'd1' })).rejects.toThrow('process died');
      revive();
      const resumed = await agent.resume('d1');
      const result = resumed.steps.flatMap((step) => step.toolResults).find((r) => r.toolCallId === 'c1');
      expect(result).toMatchObject({ status: 'ok', content: 'lookup done' });
      expect(resumed.text).toBe('Found it.');
    });
  });

  describe('when resume answers a completed run from the store', () => {
    it('should report the agent that answered last', async () => {
      const store = memoryStore();
      const billing = new Agent({ client: env.client, model, name: 'billing' });
      const triage = new Agent({ client: env.client, model, name: 'triage', handoffs: [billing], store });
      env.emu.script([call('t1', 'transfer_to_billing'), answer('Done.')]);
      const first = await triage.run('refund', { runId: 'g1' });
      expect(first.lastAgent).toBe('billing');
      const again = await triage.resume('g1');
      expect(again).toMatchObject({ status: 'completed', text: 'Done.', lastAgent: 'billing' });
      expect(chatRequests(env.emu)).toHaveLength(2);
    });

    it('should still load a record written without lastAgent', async () => {
      const dir = `${process.env.TMPDIR ?? '/tmp'}/svc-durable-features-${process.pid}`;
      const store = fileStore({ dir });
      try {
        const agent = new Agent({ client: env.client, model, store });
        env.emu.script([answer('Old.')]);
        await agent.run('hi', { runId: 'old' });
        const {
          version,
          createdAt: _c,
          updatedAt: _u,
          lastAgent: _l,
          ...input
        } = (await store.getRun('old'))!;
        await store.updateRun('old', version, input);
        expect(await agent.resume('old')).toMatchObject({ status: 'completed', text: 'Old.' });
      } finally {
        await import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true, force: true }));
      }
    });
  });

  describe('when the checkpoint before a turn`s tools fails', () => {
    it('should abort the tools it started early', async () => {
      const { store } = crashingStore(() => false);
      let aborted = false;
      let started = false;
      const slow = defineTool({
        name: 'slow',
        description: 'A slow idempotent lookup.',
        parameters: z.object({}),
        idempotent: true,
        execute: (_args, ctx) =>
          new Promise<string>((resolve) => {
            started = true;
            const timer = setTimeout(() => resolve('slow done'), 3000);
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              clearTimeout(timer);
              resolve('aborted');
            });
          }),
      });
      const failing: Store = {
        ...store,
        async updateRun() {
          throw new Error('store down');
        },
      };
      const agent = new Agent({ client: env.client, model, store: failing, tools: [slow] });
      env.emu.script([call('c1', 'slow'), answer('Never.')]);
      const stream = agent.stream('go', { runId: 'eager' });
      await expect(stream.result).rejects.toThrow('store down');
      expect(started).toBe(true);
      // Waiting for nothing to happen: no late write may reach the store after the run failed.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(aborted).toBe(true);
    });
  });
});
