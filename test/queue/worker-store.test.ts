import { describe, expect, it } from 'vitest';
import type { RunRecordInput } from '../../src/agent/durable/store.js';
import { WorkerClosedError } from '../../src/queue/queue-errors.js';
import { deferFailures, fenceWrites } from '../../src/queue/worker-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';

const input: RunRecordInput = {
  id: 'r1',
  agentName: 'support',
  status: 'running',
  state: { messages: [] },
  interruptions: [],
};

describe("the store as a worker's job sees it", () => {
  it('should refuse the final commit of a force-closed run, leaving its record and session as they were', async () => {
    const store = memoryStore();
    const created = await store.createRun(input);
    const controller = new AbortController();
    const fenced = fenceWrites(deferFailures(store), controller.signal);
    controller.abort();
    await expect(
      fenced.commitRun!(
        'r1',
        created.version,
        { ...input, status: 'completed', text: 'Done.' },
        { sessionId: 'chat', items: [{ role: 'assistant', content: 'Done.' }] },
      ),
    ).rejects.toBeInstanceOf(WorkerClosedError);
    await expect(fenced.addItems('chat', [{ role: 'user', content: 'Hi' }])).rejects.toBeInstanceOf(
      WorkerClosedError,
    );
    expect(await fenced.getRun('r1')).toMatchObject({ status: 'running', version: created.version });
    expect(await store.getItems('chat')).toEqual([]);
  });

  it('should pass the write id on, so a repeated write is answered with the stored record', async () => {
    const store = memoryStore();
    const created = await store.createRun(input);
    const worker = fenceWrites(deferFailures(store), new AbortController().signal);
    const options = { writeId: 'checkpoint-2' };
    const first = await worker.updateRun('r1', created.version, input, options);
    const repeated = await worker.updateRun('r1', created.version, input, options);
    expect(repeated).toMatchObject({ version: first.version, writeId: 'checkpoint-2' });
    const committed = await worker.commitRun!(
      'r1',
      first.version,
      { ...input, status: 'completed' },
      { sessionId: 'chat', items: [{ role: 'assistant', content: 'Done.' }] },
      { writeId: 'final' },
    );
    const again = await worker.commitRun!(
      'r1',
      first.version,
      { ...input, status: 'completed' },
      { sessionId: 'chat', items: [{ role: 'assistant', content: 'Done.' }] },
      { writeId: 'final' },
    );
    expect(again.version).toBe(committed.version);
    expect(await store.getItems('chat')).toHaveLength(1);
  });
});
