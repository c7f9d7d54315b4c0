import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import {
  RunEventGapError,
  SignalTooLargeError,
  StoreClosedError,
  StoreInputError,
} from '../../src/stores/store-errors.js';
import { eventually } from '../helpers/eventually.js';
import { type SharedStateBackend, sharedStateBackends } from '../helpers/shared-state-backends.js';

type SharedStore = Store &
  Required<
    Pick<
      Store,
      'appendRunEvents' | 'readRunEvents' | 'signal' | 'onSignal' | 'getValue' | 'setValueIf' | 'close'
    >
  >;

const ids = (events: { id: number }[]) => events.map((event) => event.id);

function runSuite(backend: SharedStateBackend) {
  describe.skipIf(!backend.available)(backend.name, () => {
    // Two store objects on the same backend: the views of two processes (one object for memoryStore).
    let a: SharedStore;
    let b: SharedStore;
    let passTime: (ms: number) => Promise<void>;
    let cleanup: () => Promise<void>;
    const warnings: string[] = [];
    beforeAll(async () => {
      const opened = await backend.open({ onWarning: (message) => warnings.push(message) });
      a = opened.a as SharedStore;
      b = opened.b as SharedStore;
      passTime = opened.passTime;
      cleanup = opened.cleanup;
    });
    afterAll(async () => {
      await cleanup?.();
    });

    describe('when run events are appended', () => {
      it('should read them back in id order, after an id and up to a limit', async () => {
        await a.appendRunEvents('log-read', 0, ['e0', 'e1']);
        await b.appendRunEvents('log-read', 2, ['e2', 'e3', 'e4']);
        expect(await b.readRunEvents('log-read')).toEqual([
          { id: 0, data: 'e0' },
          { id: 1, data: 'e1' },
          { id: 2, data: 'e2' },
          { id: 3, data: 'e3' },
          { id: 4, data: 'e4' },
        ]);
        expect(ids(await a.readRunEvents('log-read', 1))).toEqual([2, 3, 4]);
        expect(ids(await a.readRunEvents('log-read', -1, 2))).toEqual([0, 1]);
        expect(await a.readRunEvents('log-read', 2, 2)).toEqual([
          { id: 3, data: 'e3' },
          { id: 4, data: 'e4' },
        ]);
        expect(await a.readRunEvents('log-read', 4)).toEqual([]);
        expect(await a.readRunEvents('log-read', 99)).toEqual([]);
        expect(await a.readRunEvents('log-missing')).toEqual([]);
      });

      it('should keep each run its own log', async () => {
        await a.appendRunEvents('log-own-1', 0, ['one']);
        await a.appendRunEvents('log-own-2', 0, ['two']);
        expect(await b.readRunEvents('log-own-1')).toEqual([{ id: 0, data: 'one' }]);
        expect(await b.readRunEvents('log-own-2')).toEqual([{ id: 0, data: 'two' }]);
      });

      it('should keep the data byte for byte (unicode, newlines, JSON)', async () => {
        const data = [JSON.stringify({ type: 'text_delta', delta: 'héllo\n"wörld" 🎉' }), '', 'a\r\nb'];
        await a.appendRunEvents('log-bytes', 0, data);
        expect((await b.readRunEvents('log-bytes')).map((event) => event.data)).toEqual(data);
      });

      it('should change nothing when an append is retried with ids already stored', async () => {
        await a.appendRunEvents('log-retry', 0, ['e0', 'e1', 'e2']);
        await b.appendRunEvents('log-retry', 0, ['e0', 'e1', 'e2']);
        await a.appendRunEvents('log-retry', 1, ['e1']);
        expect(ids(await a.readRunEvents('log-retry'))).toEqual([0, 1, 2]);
      });

      it('should append only the new part of an append that overlaps the stored ids', async () => {
        await a.appendRunEvents('log-overlap', 0, ['e0', 'e1']);
        await b.appendRunEvents('log-overlap', 1, ['e1', 'e2', 'e3']);
        expect(await a.readRunEvents('log-overlap')).toEqual([
          { id: 0, data: 'e0' },
          { id: 1, data: 'e1' },
          { id: 2, data: 'e2' },
          { id: 3, data: 'e3' },
        ]);
      });

      it('should refuse an append that leaves a gap, naming firstId and the next free id', async () => {
        await a.appendRunEvents('log-gap', 0, ['e0']);
        const error = await b.appendRunEvents('log-gap', 3, ['e3']).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RunEventGapError);
        expect(error).toMatchObject({ runId: 'log-gap', firstId: 3, nextId: 1, field: 'firstId' });
        expect((error as Error).message).toMatch(/firstId 3 is past the next free id 1/);
        expect(ids(await a.readRunEvents('log-gap'))).toEqual([0]);
        await expect(a.appendRunEvents('log-gap-empty', 1, ['e1'])).rejects.toBeInstanceOf(RunEventGapError);
      });

      it('should refuse bad arguments naming the field', async () => {
        const cases: [() => Promise<unknown>, string][] = [
          [() => a.appendRunEvents('', 0, ['x']), 'runId'],
          [() => a.appendRunEvents('log-bad', -1, ['x']), 'firstId'],
          [() => a.appendRunEvents('log-bad', 1.5, ['x']), 'firstId'],
          [() => a.appendRunEvents('log-bad', 0, [{} as unknown as string]), 'events[0]'],
          [() => a.appendRunEvents('log-bad', 0, ['x'], { ttlMs: 0 }), 'ttlMs'],
          [() => a.readRunEvents('log-bad', -2), 'afterId'],
          [() => a.readRunEvents('log-bad', 0, 0), 'limit'],
        ];
        for (const [call, field] of cases) {
          const error = await call().catch((caught: unknown) => caught);
          expect(error, field).toBeInstanceOf(StoreInputError);
          expect((error as StoreInputError).field).toBe(field);
        }
        expect(await a.readRunEvents('log-bad')).toEqual([]);
      });

      it('should expire a log ttlMs after its last append', async () => {
        // Margins of hundreds of milliseconds: the machine may be loaded.
        await a.appendRunEvents('log-ttl', 0, ['e0'], { ttlMs: 1000 });
        await passTime(600);
        await a.appendRunEvents('log-ttl', 1, ['e1'], { ttlMs: 1000 });
        await passTime(600);
        expect(ids(await b.readRunEvents('log-ttl'))).toEqual([0, 1]);
        await passTime(400);
        // Redis and PostgreSQL expire by their own clock, a little after the 1000 ms: polled, not slept.
        await eventually(async () => (await b.readRunEvents('log-ttl')).length === 0, 5000);
        // An expired log starts again from id 0.
        await expect(a.appendRunEvents('log-ttl', 2, ['e2'])).rejects.toBeInstanceOf(RunEventGapError);
        await a.appendRunEvents('log-ttl', 0, ['again']);
        expect(await b.readRunEvents('log-ttl')).toEqual([{ id: 0, data: 'again' }]);
      });

      it('should keep appends from two writers racing on the same ids dense and whole', async () => {
        const runId = 'log-race';
        for (let round = 0; round < 10; round++) {
          const events = [`r${round}a`, `r${round}b`];
          // One racer gives a ttl and one does not: refreshing the expiry must not deadlock an insert.
          await Promise.all([
            a.appendRunEvents(runId, round * 2, events, { ttlMs: 60_000 }),
            b.appendRunEvents(runId, round * 2, events),
            a.appendRunEvents(
              runId,
              Math.max(0, round * 2 - 1),
              [`r${round - 1}b`, ...events].slice(round === 0 ? 1 : 0),
              { ttlMs: 60_000 },
            ),
          ]);
        }
        const read = await a.readRunEvents(runId);
        expect(ids(read)).toEqual(Array.from({ length: 20 }, (_, index) => index));
        expect(read.map((event) => event.data)).toEqual(
          Array.from({ length: 20 }, (_, index) => `r${Math.floor(index / 2)}${index % 2 === 0 ? 'a' : 'b'}`),
        );
      });
    });

    describe('when signals are sent', () => {
      it('should deliver a signal from one store object to the listeners of another', async () => {
        const received: string[] = [];
        const unsubscribe = await b.onSignal('sig-basic', (message) => received.push(message));
        await a.signal('sig-basic', 'hello');
        await a.signal('sig-other', 'not for you');
        await eventually(async () => received.length === 1);
        expect(received).toEqual(['hello']);
        await unsubscribe();
        await a.signal('sig-basic', 'after unsubscribe');
        // Waiting for nothing to happen: an unsubscribed listener gets no message.
        await sleep(150);
        expect(received).toEqual(['hello']);
      });

      it('should deliver the next signal to every listener once their onSignal answered', async () => {
        const received: string[] = [];
        const offs = await Promise.all(
          ['first', 'second', 'third'].map((name) =>
            b.onSignal('sig-concurrent', (message) => received.push(`${name}:${message}`)),
          ),
        );
        await a.signal('sig-concurrent', 'go');
        await eventually(async () => received.length === 3);
        expect(received.sort()).toEqual(['first:go', 'second:go', 'third:go']);
        await Promise.all(offs.map((off) => off()));
      });

      it("should deliver a signal to the sender's own listeners too", async () => {
        const received: string[] = [];
        const unsubscribe = await a.onSignal('sig-self', (message) => received.push(message));
        await a.signal('sig-self', 'to myself');
        await eventually(async () => received.length === 1);
        expect(received).toEqual(['to myself']);
        await unsubscribe();
      });

      it('should deliver to every listener even when one throws', async () => {
        const received: string[] = [];
        const offThrowing = await b.onSignal('sig-throw', () => {
          throw new Error('listener bug');
        });
        const offGood = await b.onSignal('sig-throw', (message) => received.push(message));
        await a.signal('sig-throw', 'one');
        await eventually(async () => received.length === 1);
        await a.signal('sig-throw', 'two');
        await eventually(async () => received.length === 2);
        expect(received).toEqual(['one', 'two']);
        expect(warnings.some((warning) => warning.includes('listener bug'))).toBe(true);
        await offThrowing();
        await offGood();
      });

      it('should deliver a message of up to 4,000 bytes as sent and refuse a larger one', async () => {
        const received: string[] = [];
        const off = await b.onSignal('sig-size', (message) => received.push(message));
        const largest = `${'é'.repeat(1999)}xy`; // 4,000 bytes of UTF-8
        await a.signal('sig-size', largest);
        await eventually(async () => received.length === 1);
        expect(received[0]).toBe(largest);
        const error = await a.signal('sig-size', `${largest}z`).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(SignalTooLargeError);
        expect(error).toMatchObject({ field: 'message', bytes: 4001, limit: 4000 });
        await off();
      });

      it('should refuse a bad channel or listener naming the field', async () => {
        await expect(a.signal('', 'x')).rejects.toMatchObject({ field: 'channel' });
        await expect(a.signal('c', 3 as unknown as string)).rejects.toMatchObject({ field: 'message' });
        await expect(a.onSignal('c', 'no' as unknown as () => void)).rejects.toMatchObject({
          field: 'listener',
        });
      });
    });

    describe('when values are written with compare-and-set', () => {
      it('should read an absent value as version 0 and bump the version on each write', async () => {
        expect(await a.getValue('val-basic')).toEqual({ value: undefined, version: 0 });
        expect(await a.setValueIf('val-basic', 0, 'one')).toBe(true);
        expect(await b.getValue('val-basic')).toEqual({ value: 'one', version: 1 });
        expect(await b.setValueIf('val-basic', 0, 'stale')).toBe(false);
        expect(await b.setValueIf('val-basic', 1, 'two')).toBe(true);
        expect(await a.getValue('val-basic')).toEqual({ value: 'two', version: 2 });
        expect(await a.setValueIf('val-basic', 1, 'stale')).toBe(false);
        expect(await a.setValueIf('val-basic', 2, undefined)).toBe(true);
        expect(await b.getValue('val-basic')).toEqual({ value: undefined, version: 0 });
        expect(await b.setValueIf('val-basic', 0, '')).toBe(true);
        expect(await a.getValue('val-basic')).toEqual({ value: '', version: 1 });
      });

      it('should let exactly one of two racing writers win each round', async () => {
        const key = 'val-race';
        for (let round = 0; round < 20; round++) {
          const [seenByA, seenByB] = await Promise.all([a.getValue(key), b.getValue(key)]);
          expect(seenByA.version).toBe(round);
          expect(seenByB.version).toBe(round);
          const wins = await Promise.all([
            a.setValueIf(key, seenByA.version, `a${round}`),
            b.setValueIf(key, seenByB.version, `b${round}`),
          ]);
          expect(wins.filter(Boolean)).toHaveLength(1);
          const stored = await a.getValue(key);
          expect(stored.value).toBe(wins[0] ? `a${round}` : `b${round}`);
        }
      });

      it('should expire a value ttlMs after its write, then behave as absent', async () => {
        expect(await a.setValueIf('val-ttl', 0, 'short', { ttlMs: 800 })).toBe(true);
        expect(await b.getValue('val-ttl')).toEqual({ value: 'short', version: 1 });
        await passTime(800);
        await eventually(async () => (await b.getValue('val-ttl')).version === 0, 5000);
        expect(await b.getValue('val-ttl')).toEqual({ value: undefined, version: 0 });
        expect(await a.setValueIf('val-ttl', 1, 'stale')).toBe(false);
        expect(await a.setValueIf('val-ttl', 0, 'fresh')).toBe(true);
        expect(await b.getValue('val-ttl')).toEqual({ value: 'fresh', version: 1 });
        // Written without ttlMs, the value no longer expires.
        expect(await a.setValueIf('val-ttl', 1, 'kept', { ttlMs: 800 })).toBe(true);
        expect(await a.setValueIf('val-ttl', 2, 'kept')).toBe(true);
        // Past the 800 ms the value would have lived: Redis and PostgreSQL expire by their own clock, so
        // passTime waits for them; memoryStore and fileStore move their test clock.
        await passTime(1000);
        expect(await b.getValue('val-ttl')).toEqual({ value: 'kept', version: 3 });
      });

      it('should refuse bad arguments naming the field', async () => {
        await expect(a.getValue('')).rejects.toMatchObject({ field: 'key' });
        await expect(a.setValueIf('val-bad', -1, 'x')).rejects.toMatchObject({ field: 'version' });
        await expect(a.setValueIf('val-bad', 0, 3 as unknown as string)).rejects.toMatchObject({
          field: 'value',
        });
        await expect(a.setValueIf('val-bad', 0, 'x', { ttlMs: -5 })).rejects.toMatchObject({
          field: 'ttlMs',
        });
        expect(await a.getValue('val-bad')).toEqual({ value: undefined, version: 0 });
      });
    });
  });
}

for (const backend of sharedStateBackends) runSuite(backend);

describe('a closed store', () => {
  it('should refuse the shared-state operations with StoreClosedError', async () => {
    const store = memoryStore();
    await store.close();
    await expect(store.appendRunEvents!('r', 0, ['x'])).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.readRunEvents!('r')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.signal!('c', 'x')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.onSignal!('c', () => {})).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.getValue!('k')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.setValueIf!('k', 0, 'x')).rejects.toBeInstanceOf(StoreClosedError);
  });
});
