import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventLogStore, SignalStore, Store, StoredRunEvent } from '../../src/agent/durable/store.js';
import { type FollowRunEventsOptions, followRunEvents } from '../../src/stores/follow-run-events.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { RunEventLogWriter } from '../../src/stores/run-event-log-writer.js';
import {
  APPEND_AND_SIGNAL,
  appendAndAnnounceRunEvents,
  decodeRunEventsSignal,
  encodeRunEventsSignal,
} from '../../src/stores/run-events-signal.js';
import { type OpenedSharedState, sharedStateBackends } from '../helpers/shared-state-backends.js';
import { withoutSignals } from '../helpers/without-signals.js';

type LogStore = Store & RunEventLogStore & Partial<SignalStore>;

const event = (n: number) => JSON.stringify({ type: 'text-delta', text: `t${n}` });
const finish = JSON.stringify({ type: 'finish', finishReason: 'stop' });
const isFinish = (stored: StoredRunEvent) => stored.data === finish;

/** The store with its `readRunEvents` calls counted (the follower's store object only). */
function countingReads(store: LogStore): { store: LogStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, key) {
      if (key === 'readRunEvents') {
        return (...args: Parameters<LogStore['readRunEvents']>) => {
          reads++;
          return target.readRunEvents(...args);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

function follow(store: LogStore, runId: string, options: Partial<FollowRunEventsOptions> = {}) {
  return followRunEvents(store, runId, { isOver: async () => false, isLast: isFinish, ...options });
}

async function collect(events: AsyncIterable<StoredRunEvent>): Promise<StoredRunEvent[]> {
  const seen: StoredRunEvent[] = [];
  for await (const each of events) seen.push(each);
  return seen;
}

const idsOf = (events: StoredRunEvent[]) => events.map((each) => each.id);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
const until = (check: () => boolean) =>
  new Promise<void>((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 5));
    poll();
  });

describe('encodeRunEventsSignal', () => {
  it('should carry the batch when it fits and only the last id when it does not', () => {
    expect(decodeRunEventsSignal(encodeRunEventsSignal(4, ['{"a":1}', '{"b":2}']))).toEqual({
      kind: 'appended',
      lastId: 5,
      events: [
        { id: 4, data: '{"a":1}' },
        { id: 5, data: '{"b":2}' },
      ],
    });
    expect(decodeRunEventsSignal(encodeRunEventsSignal(0, ['x'.repeat(2_000)]))).toEqual({
      kind: 'appended',
      lastId: 0,
    });
    expect(decodeRunEventsSignal(encodeRunEventsSignal(7, ['line\nbreak']))).toEqual({
      kind: 'appended',
      lastId: 7,
    });
    // The message a writer of an older version sends, and the chat's end.
    expect(decodeRunEventsSignal('12')).toEqual({ kind: 'appended', lastId: 12 });
    expect(decodeRunEventsSignal('end')).toEqual({ kind: 'other' });
  });
});

describe('followRunEvents', () => {
  describe('when given bad options', () => {
    it('should refuse them naming the field and the rule, before reading anything', async () => {
      const store = memoryStore() as LogStore;
      const first = (options: Partial<FollowRunEventsOptions>, runId = 'r') =>
        follow(store, runId, options)
          .next()
          .catch((error: unknown) => error);
      expect(await first({}, '')).toMatchObject({ field: 'runId', rule: 'must be a non-empty string' });
      expect(await first({ afterId: -2 })).toMatchObject({ field: 'afterId' });
      expect(await first({ recheckMs: 0 })).toMatchObject({ field: 'recheckMs' });
      expect(await first({ isOver: 'no' as never })).toMatchObject({ field: 'isOver' });
      await store.close?.();
    });
  });
});

for (const backend of sharedStateBackends) {
  describe.skipIf(!backend.available)(`followRunEvents on ${backend.name}`, () => {
    let opened: OpenedSharedState | undefined;
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });
    const open = async () => {
      opened = await backend.open({ onWarning: () => undefined });
      return { follower: opened.a as LogStore, writer: opened.b as LogStore };
    };

    describe('when the follower starts late', () => {
      it('should replay the events after afterId, then follow what another store object appends, each id once', async () => {
        const { follower, writer } = await open();
        await writer.appendRunEvents('r', 0, range(0, 5).map(event));
        const following = collect(follow(follower, 'r', { afterId: 1 }));
        const log = new RunEventLogWriter(writer, 'r');
        for (let n = 5; n < 40; n++) {
          log.push(event(n));
          if (n % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        }
        log.push(finish);
        await log.close();

        const seen = await following;
        expect(idsOf(seen)).toEqual(range(2, 41));
        expect(seen.at(-2)?.data).toBe(event(39));
      });
    });

    describe('when the follower is up to date', () => {
      it('should take each batch from its signal, without reading the log again', async () => {
        const { follower, writer } = await open();
        // fileStore signals only within a process, as here: its two objects share them.
        const { store, reads } = countingReads(follower);
        const seen: StoredRunEvent[] = [];
        const following = (async () => {
          for await (const each of follow(store, 'r', { recheckMs: 60_000 })) seen.push(each);
        })();
        await until(() => reads() === 1);
        // Let the follower subscribe and read before the first append.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const log = new RunEventLogWriter(writer, 'r', { firstId: 0 });
        for (let n = 0; n < 30; n++) {
          log.push(event(n));
          await log.flush();
        }
        log.push(finish);
        await log.close();
        await following;

        expect(idsOf(seen)).toEqual(range(0, 31));
        expect(reads()).toBe(1);
      });
    });

    describe('when the signals are lost', () => {
      it('should follow the log on its timer and end once the run is over and the log read to its end', async () => {
        const { follower, writer } = await open();
        let over = false;
        const following = collect(
          follow(withoutSignals(follower), 'r', {
            recheckMs: 20,
            isLast: undefined,
            isOver: async () => over,
          }),
        );
        const log = new RunEventLogWriter(writer, 'r', { firstId: 0 });
        for (let n = 0; n < 10; n++) {
          log.push(event(n));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await log.close();
        over = true;
        // Appended after the run was found over but before the final read: still relayed.
        expect(idsOf(await following)).toEqual(range(0, 10));
      });
    });

    describe('when the follower does not read for a while', () => {
      it('should drop the signals past its bound and read the log when it comes back, missing nothing', async () => {
        const { follower, writer } = await open();
        const { store, reads } = countingReads(follower);
        const iterator = follow(store, 'r', { recheckMs: 60_000 })[Symbol.asyncIterator]();
        const first = iterator.next();
        const log = new RunEventLogWriter(writer, 'r', { firstId: 0 });
        log.push(event(0));
        await log.flush();
        expect((await first).value).toMatchObject({ id: 0 });
        // The follower is stalled in its first yield while 300 batches go by.
        for (let n = 1; n <= 300; n++) {
          log.push(event(n));
          await log.flush();
        }
        log.push(finish);
        await log.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        const rest: StoredRunEvent[] = [];
        for (let next = await iterator.next(); !next.done; next = await iterator.next())
          rest.push(next.value);

        expect(idsOf(rest)).toEqual(range(1, 302));
        expect(reads()).toBeGreaterThan(1);
      });
    });

    describe('when the store appends and signals in one trip', () => {
      it('should store, refuse and announce exactly what the append then the signal do', async () => {
        const { follower, writer } = await open();
        const simple = new Proxy(writer, {
          get: (target, key) => (key === APPEND_AND_SIGNAL ? undefined : Reflect.get(target, key)),
        });
        const heard: Record<string, string[]> = { together: [], apart: [] };
        const unsubscribe = await Promise.all(
          Object.keys(heard).map((runId) =>
            follower.onSignal!(`events:${runId}`, (message) => heard[runId]!.push(message)),
          ),
        );
        const play = async (store: LogStore, runId: string) => {
          const outcomes: string[] = [];
          for (const [firstId, events] of [
            [0, ['a', 'b']],
            [1, ['b', 'c']],
            [5, ['gap']],
            [3, ['d']],
            [4, []],
          ] as const) {
            outcomes.push(
              await appendAndAnnounceRunEvents(store, runId, firstId, events, { ttlMs: 60_000 }).then(
                async ({ announced }) => {
                  await announced;
                  return 'ok';
                },
                (error: Error) => error.name,
              ),
            );
          }
          return outcomes;
        };
        const together = await play(writer, 'together');
        const apart = await play(simple, 'apart');
        await until(() => heard.together!.length >= 3 && heard.apart!.length >= 3);
        await new Promise((resolve) => setTimeout(resolve, 50));

        expect(together).toEqual(apart);
        expect(together).toEqual(['ok', 'ok', 'RunEventGapError', 'ok', 'ok']);
        expect((await writer.readRunEvents('together')).map((event) => event.data)).toEqual([
          'a',
          'b',
          'c',
          'd',
        ]);
        expect(await writer.readRunEvents('together')).toEqual(await writer.readRunEvents('apart'));
        expect(heard.together).toEqual(heard.apart);
        await Promise.all(unsubscribe.map((each) => each()));
      });
    });

    describe('when its abort signal fires', () => {
      it('should end without an error', async () => {
        const { follower } = await open();
        const controller = new AbortController();
        const following = collect(follow(follower, 'r', { signal: controller.signal }));
        setTimeout(() => controller.abort(), 50);
        expect(await following).toEqual([]);
      });
    });
  });
}
