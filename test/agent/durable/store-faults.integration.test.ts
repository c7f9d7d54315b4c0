import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import type { Store } from '../../../src/agent/durable/store.js';
import type { ChatMessage } from '../../../src/api/types/chat.js';
import { createTransferTools, toolAnswers } from '../../helpers/create-transfer-tools.js';
import { eventually } from '../../helpers/eventually.js';
import {
  failNextWrite,
  type ProxiedStore,
  proxiedStoreBackends,
} from '../../helpers/proxied-store-backends.js';
import { chunkContains } from '../../helpers/tcp-fault-proxy.js';
import { answer, toolTurn } from '../../helpers/tool-turn.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const model = 'svc-3.5-flash';

/** Calls `onError` once a store operation fails, then lets the error through: the fault stays real. */
function observeFailures(store: Store, onError: () => void): Store {
  const updateRun: Store['updateRun'] = async (...args) => {
    try {
      return await store.updateRun(...args);
    } catch (error) {
      onError();
      throw error;
    }
  };
  return { ...store, updateRun };
}

for (const backend of proxiedStoreBackends) {
  describe.skipIf(!backend.available)(`durable runs under store faults on ${backend.name}`, () => {
    let proxied: ProxiedStore;
    beforeEach(async () => {
      proxied = await backend.open();
    });
    afterEach(async () => {
      await proxied.cleanup();
    });

    describe('when the checkpoint after the first of two parallel calls fails', () => {
      it('should record the run failed for good, with the other call stopped, and never run it again on an early resume', async () => {
        const transfer = createTransferTools();
        const agent = new Agent({ client: env.client, model, store: proxied.store, tools: transfer.tools });
        env.emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer']), answer('Checked.')]);
        // The checkpoint holding the lookup's result never reaches the store: its connection is reset.
        const fault = failNextWrite(backend, proxied, chunkContains('FAST-RESULT'));
        await expect(agent.run('Move the money', { runId: 'transfer' })).rejects.toThrow();
        await fault;
        const failed = await proxied.store.getRun('transfer');
        expect(failed?.status).toBe('failed');
        expect(transfer.finished).toBe(0);

        // Resumed while the first transfer still runs: it is answered, not started again.
        const resumed = await agent.resume('transfer');
        expect(resumed.status).toBe('completed');
        transfer.release();
        await eventually(async () => transfer.finished === 1);
        const record = await proxied.store.getRun('transfer');
        expect(transfer.executions).toEqual(['transfer:0:c2']);
        expect(record).toMatchObject({ status: 'completed', text: 'Checked.' });
        expect(toolAnswers(record)).toEqual({ c1: 1, c2: 1 });
        const answered = ((record?.state.messages ?? []) as ChatMessage[]).find(
          (message) => message.role === 'tool' && message.tool_call_id === 'c2',
        );
        expect(answered?.content).toContain('may have taken effect');
      });

      it('should record the run failed when the failed checkpoint was in fact applied (its reply was lost)', async () => {
        const transfer = createTransferTools();
        const agent = new Agent({ client: env.client, model, store: proxied.store, tools: transfer.tools });
        env.emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer']), answer('Checked.')]);
        // The server applies the checkpoint holding the lookup's result, its reply is lost, and every
        // repeat the store makes is cut: the run sees the write fail, though it landed.
        const fault = proxied.proxy.dropReplyTo(chunkContains('FAST-RESULT'));
        for (let attempt = 1; attempt < backend.writeAttempts; attempt++) {
          void proxied.proxy.resetBefore(chunkContains('FAST-RESULT'));
        }
        await expect(agent.run('Move the money', { runId: 'transfer' })).rejects.toThrow();
        await fault;
        const failed = await proxied.store.getRun('transfer');
        expect(failed?.status).toBe('failed');
        expect(transfer.finished).toBe(0);

        const resumed = await agent.resume('transfer');
        transfer.release();
        await eventually(async () => transfer.finished === 1);
        expect(resumed.status).toBe('completed');
        expect(transfer.executions).toEqual(['transfer:0:c2']);
        const record = await proxied.store.getRun('transfer');
        expect(toolAnswers(record)).toEqual({ c1: 1, c2: 1 });
        const answered = ((record?.state.messages ?? []) as ChatMessage[]).find(
          (message) => message.role === 'tool' && message.tool_call_id === 'c2',
        );
        expect(answered?.content).toContain('may have taken effect');
      });

      it('should leave the failed record as it is when the stopped call finishes later', async () => {
        const transfer = createTransferTools();
        const agent = new Agent({ client: env.client, model, store: proxied.store, tools: transfer.tools });
        env.emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer'])]);
        const fault = failNextWrite(backend, proxied, chunkContains('FAST-RESULT'));
        await expect(agent.run('Move the money', { runId: 'transfer' })).rejects.toThrow();
        await fault;
        const failed = await proxied.store.getRun('transfer');
        transfer.release();
        await eventually(async () => transfer.finished === 1);
        // One more store round trip after the transfer ended: any write it caused has landed.
        const after = await proxied.store.getRun('transfer');
        expect(after).toMatchObject({ status: 'failed', version: failed?.version });
      });

      it('should keep the in-flight calls when the failure itself cannot be recorded', async () => {
        const transfer = createTransferTools();
        let outage = true;
        const store = observeFailures(proxied.store, () => {
          if (outage) proxied.proxy.setRefusing(true);
        });
        const agent = new Agent({ client: env.client, model, store, tools: transfer.tools });
        env.emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer']), answer('Checked.')]);
        const fault = failNextWrite(backend, proxied, chunkContains('FAST-RESULT'));
        await expect(agent.run('Move the money', { runId: 'transfer' })).rejects.toThrow();
        await fault;
        outage = false;
        proxied.proxy.setRefusing(false);
        // The last checkpoint that landed is the one before the tools started: both calls in flight.
        expect(await proxied.store.getRun('transfer')).toMatchObject({
          status: 'running',
          inFlight: ['c1', 'c2'],
        });
        const resumed = await agent.resume('transfer');
        transfer.release();
        await eventually(async () => transfer.finished === 1);
        expect(resumed.status).toBe('completed');
        expect(transfer.executions).toEqual(['transfer:0:c2']);
        expect(toolAnswers(await proxied.store.getRun('transfer'))).toEqual({ c1: 1, c2: 1 });
      });
    });

    describe('when the write of the final answer fails', () => {
      it('should leave the session and the record with the same answer after a resume that answers differently', async () => {
        const agent = new Agent({ client: env.client, model, store: proxied.store });
        env.emu.script([answer('ANSWER-A'), answer('ANSWER-B')]);
        // Only the write that records the run as completed is cut; an append alone passes.
        const fault = failNextWrite(
          backend,
          proxied,
          (chunk) => chunkContains('ANSWER-A')(chunk) && chunkContains('"status":"completed"')(chunk),
        );
        await expect(agent.run('Which answer?', { runId: 'final', session: 'chat' })).rejects.toThrow();
        await fault;
        const resumed = await agent.resume('final');
        expect(resumed.text).toBe('ANSWER-B');
        const record = await proxied.store.getRun('final');
        const session = await proxied.store.getItems('chat');
        expect(record).toMatchObject({ status: 'completed', text: 'ANSWER-B' });
        expect(session).toEqual([
          { role: 'user', content: 'Which answer?' },
          expect.objectContaining({ role: 'assistant', content: 'ANSWER-B' }),
        ]);
      });

      it('should leave the session and the record with the same answer when the reply to its write is lost', async () => {
        const agent = new Agent({ client: env.client, model, store: proxied.store });
        env.emu.script([answer('ANSWER-A'), answer('ANSWER-B')]);
        const fault = proxied.proxy.dropReplyTo(chunkContains('ANSWER-A'));
        // Whether the write landed depends on the store (a Redis script ran; a PostgreSQL transaction
        // whose connection dropped before COMMIT did not): either way both sides must agree.
        await agent.run('Which answer?', { runId: 'final', session: 'chat' }).catch(() => undefined);
        await fault;
        const resumed = await agent.resume('final');
        const record = await proxied.store.getRun('final');
        expect(record).toMatchObject({ status: 'completed', text: resumed.text });
        expect(await proxied.store.getItems('chat')).toEqual([
          { role: 'user', content: 'Which answer?' },
          expect.objectContaining({ role: 'assistant', content: resumed.text }),
        ]);
      });
    });
  });
}
