import { describe, expect, it } from 'vitest';
import type { RunEventLogStore, Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { nextRunEventId, RunEventLogWriter } from '../../src/stores/run-event-log-writer.js';

type LogStore = Store & RunEventLogStore;

/** The memory store, with its appends failing as `fault` says: before writing, or after (the reply lost). */
function faultyStore(fault: (call: number) => 'before' | 'after' | undefined): {
  store: LogStore;
  reads: () => number;
} {
  const inner = memoryStore() as LogStore;
  let appends = 0;
  let reads = 0;
  const store = Object.create(inner) as LogStore;
  store.appendRunEvents = async (runId, firstId, events, options) => {
    const mode = fault(++appends);
    if (mode === 'before') throw new Error('connection reset');
    await inner.appendRunEvents(runId, firstId, events, options);
    if (mode === 'after') throw new Error('reply lost');
  };
  store.readRunEvents = (runId, afterId, limit) => {
    reads++;
    return inner.readRunEvents(runId, afterId, limit);
  };
  return { store, reads: () => reads };
}

describe('nextRunEventId', () => {
  it('should answer the length of the log in a few reads, however long it is', async () => {
    const { store, reads } = faultyStore(() => undefined);
    expect(await nextRunEventId(store, 'empty')).toBe(0);
    await store.appendRunEvents('one', 0, ['{}']);
    expect(await nextRunEventId(store, 'one')).toBe(1);
    await store.appendRunEvents(
      'long',
      0,
      Array.from({ length: 1_000 }, () => '{}'),
    );
    const before = reads();

    expect(await nextRunEventId(store, 'long')).toBe(1_000);
    expect(reads() - before).toBeLessThanOrEqual(25);
  });
});

describe('RunEventLogWriter', () => {
  it('should append in order with ids from the log length, continuing a log another writer began', async () => {
    const { store } = faultyStore(() => undefined);
    await store.appendRunEvents('r', 0, ['{"n":0}', '{"n":1}']);
    const writer = new RunEventLogWriter(store, 'r', { batchMs: 1 });
    for (let n = 2; n < 10; n++) writer.push(`{"n":${n}}`);

    expect(await writer.close()).toBe(true);
    const log = await store.readRunEvents('r');
    expect(log.map((event) => event.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.map((event) => (JSON.parse(event.data) as { n: number }).n)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
  });

  it('should store each event once when an append failed, also when it had landed and only its reply was lost', async () => {
    const { store } = faultyStore((call) => (call === 1 ? 'after' : call === 2 ? 'before' : undefined));
    const errors: unknown[] = [];
    const writer = new RunEventLogWriter(store, 'r', { batchMs: 1, onError: (error) => errors.push(error) });
    writer.push('{"n":0}');
    writer.push('{"n":1}');
    await writer.flush();
    writer.push('{"n":2}');

    expect(await writer.close()).toBe(true);
    const log = await store.readRunEvents('r');
    expect(log.map((event) => event.data)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    expect(log.map((event) => event.id)).toEqual([0, 1, 2]);
    expect(errors.map((error) => (error as Error).message)).toEqual(['reply lost', 'connection reset']);
  });

  it('should announce each batch on events:<runId> with its last id and its events', async () => {
    const { store } = faultyStore(() => undefined);
    const signals: string[] = [];
    await store.onSignal!('events:r', (message) => signals.push(message));
    const writer = new RunEventLogWriter(store, 'r', { batchMs: 1 });
    writer.push('{}');
    await writer.flush();
    writer.push('{}');
    writer.push('{}');
    await writer.close();

    // The last id first, then the first id and the events themselves, which fit.
    expect(signals).toEqual(['0\n0\n{}', '2\n1\n{}\n{}']);
  });
});
