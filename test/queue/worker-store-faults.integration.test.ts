import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { createTransferTools, toolAnswers } from '../helpers/create-transfer-tools.js';
import { eventually } from '../helpers/eventually.js';
import { failNextWrite, type ProxiedStore, proxiedStoreBackends } from '../helpers/proxied-store-backends.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { chunkContains } from '../helpers/tcp-fault-proxy.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';

const model = 'svc-3.5-flash';

for (const [index, backend] of queueBackends.entries()) {
  const storeBackend = proxiedStoreBackends[index]!;
  describe.skipIf(!backend.available)(`a queue worker under store faults on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    let ns: QueueNamespace;
    let proxied: ProxiedStore;
    let queue: RunQueue;
    let worker: RunWorker | undefined;
    const startWith = async (agent: Agent) => {
      worker = await startWorker({
        connection: ns.connection,
        store: proxied.store,
        name: ns.queueName,
        agents: { support: agent },
        concurrency: 2,
        handleSignals: false,
      });
    };
    // A store error is transient: the worker retries the run from its checkpoint, never fails it for good.
    const finish = async (runId: string) => {
      const settled = await queue.waitUntilFinished(runId, { timeout: 30_000 });
      expect(settled.status).toBe('completed');
      return proxied.directStore.getRun(runId);
    };

    beforeEach(async () => {
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
      ns = backend.create();
      proxied = await storeBackend.open();
      // Only the worker's store goes through the proxy: the test's own reads are not the faults' subject.
      queue = new RunQueue({
        connection: ns.connection,
        store: proxied.directStore,
        name: ns.queueName,
        attempts: 1,
      });
    });
    afterEach(async () => {
      await worker?.close(true);
      worker = undefined;
      await queue.close();
      await proxied.cleanup();
      await ns.cleanup();
      await client.close();
      await emu.close();
    });

    it('should not run a non-idempotent call twice when the checkpoint after its sibling fails', async () => {
      const transfer = createTransferTools();
      const agent = new Agent({ client, model, tools: transfer.tools });
      await startWith(agent);
      emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer']), answer('Checked.')]);
      // The run's checkpoint, not the event-log append that carries the same tool result.
      const fault = failNextWrite(
        storeBackend,
        proxied,
        (chunk) => chunkContains('FAST-RESULT')(chunk) && chunkContains('"status":"running"')(chunk),
      );
      await queue.enqueue('support', 'Move the money', { runId: 'transfer' });
      await fault;
      // Finished (or resumed) while the first transfer is still running.
      const record = await finish('transfer');
      transfer.release();
      await eventually(async () => transfer.finished === 1);
      expect(record).toMatchObject({ status: 'completed', text: 'Checked.' });
      expect(transfer.executions).toEqual(['transfer:0:c2']);
      expect(toolAnswers(record)).toEqual({ c1: 1, c2: 1 });
    });

    // The event log is best effort for relays: the run record is the truth, and the run goes on without it.
    it('should complete the run, its tool run once, when the append to its event log fails', async () => {
      const transfer = createTransferTools();
      const agent = new Agent({ client, model, tools: transfer.tools });
      await startWith(agent);
      emu.script([toolTurn(['c1', 'fast_lookup'], ['c2', 'slow_transfer']), answer('Checked.')]);
      // The append of the batch holding the lookup's result (the event log's table or key), not a checkpoint.
      const eventLog = backend.name === 'postgres' ? 'run_events' : 'events:log-fault';
      const fault = failNextWrite(
        storeBackend,
        proxied,
        (chunk) => chunkContains(eventLog)(chunk) && chunkContains('FAST-RESULT')(chunk),
      );
      await queue.enqueue('support', 'Move the money', { runId: 'log-fault' });
      await fault;
      transfer.release();
      const record = await finish('log-fault');
      expect(record).toMatchObject({ status: 'completed', text: 'Checked.' });
      expect(transfer.executions).toEqual(['log-fault:0:c2']);
      expect(toolAnswers(record)).toEqual({ c1: 1, c2: 1 });
      // The lost batch goes with a later append (the record may be written before it): in the end the log
      // holds every event once, in order.
      const readLog = () => proxied.directStore.readRunEvents!('log-fault');
      await eventually(async () => (await readLog()).at(-1)?.data.includes('"finish"') === true, 15_000);
      const log = await readLog();
      expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index));
      expect(log.at(-1)?.data).toContain('"finish"');
      expect(log.filter((event) => event.data.includes('FAST-RESULT')).length).toBeGreaterThan(0);
    });

    it('should leave the session and the record with the same answer when the final write fails', async () => {
      const agent = new Agent({ client, model });
      await startWith(agent);
      emu.script([answer('ANSWER-A'), answer('ANSWER-B')]);
      const fault = failNextWrite(
        storeBackend,
        proxied,
        (chunk) => chunkContains('ANSWER-A')(chunk) && chunkContains('"status":"completed"')(chunk),
      );
      await queue.enqueue('support', 'Which answer?', { runId: 'final', session: 'chat' });
      await fault;
      const record = await finish('final');
      expect(record?.status).toBe('completed');
      expect(await proxied.directStore.getItems('chat')).toEqual([
        { role: 'user', content: 'Which answer?' },
        expect.objectContaining({ role: 'assistant', content: record?.text }),
      ]);
    });

    it('should record a run failed for good when the write of its failure is cut, and not run it again (D9)', async () => {
      await startWith(new Agent({ client, model }));
      emu.script([{ error: { status: 400 } }, answer('A second run.')]);
      // The write of the failure is cut twice over (every attempt the store makes at it): the worker's
      // write after the job ended and its write when BullMQ reports the job failed.
      const cut = () => failNextWrite(storeBackend, proxied, chunkContains('"status":"failed"'));
      const faults = [cut(), cut()];
      await queue.enqueue('support', 'Refused input', { runId: 'refused' });
      await Promise.all(faults);
      const record = await queue.waitUntilFinished('refused', { timeout: 20_000 });
      expect(record.status).toBe('failed');
      expect(record.error).toContain('400');
      expect(emu.requests()).toHaveLength(1);
    });

    it('should record the failure later, without running the run again, when every write of it in the job is cut (D9 fallback)', async () => {
      await startWith(new Agent({ client, model }));
      emu.script([{ error: { status: 400 } }, answer('A second run.')]);
      // Every try markFailed makes (4 per call) is cut, twice over: the job is delayed carrying the
      // failure, comes back only to record it, is cut again and delayed again. Without the fallback the
      // job failed and BullMQ's failed event was the last chance to record it: the run stayed `running`.
      const cut = () => failNextWrite(storeBackend, proxied, chunkContains('"status":"failed"'));
      const faults = Array.from({ length: 8 }, cut);
      await queue.enqueue('support', 'Refused input', { runId: 'refused-later' });
      await Promise.all(faults);
      const record = await queue.waitUntilFinished('refused-later', { timeout: 30_000 });
      expect(record.status).toBe('failed');
      expect(record.error).toContain('400');
      expect(emu.requests()).toHaveLength(1);
    }, 45_000);
  });
}
