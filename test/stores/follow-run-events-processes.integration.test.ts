import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventLogStore, SignalStore, Store, StoredRunEvent } from '../../src/agent/durable/store.js';
import { fileStore } from '../../src/stores/file-store.js';
import { followRunEvents } from '../../src/stores/follow-run-events.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';
import type { WriterProcessConfig } from './fixtures/run-event-writer-process.js';

type LogStore = Store & RunEventLogStore & Partial<SignalStore>;

const writerScript = join(import.meta.dirname, 'fixtures/run-event-writer-process.ts');
const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

/** One backend's shared log: the writers' config, and a follower's store (through a fault proxy when networked). */
interface LogPlace {
  writerConfig: Omit<WriterProcessConfig, 'name'>;
  /** A store object of the test process, through `proxy` when there is one. */
  openFollowerStore(): LogStore;
  proxy?: TcpFaultProxy;
  /** The follower's wait before reading again without a signal (fileStore signals only within a process). */
  recheckMs: number;
  cleanup(): Promise<void>;
}

const places: Array<{ name: WriterProcessConfig['backend']; available: boolean; open(): Promise<LogPlace> }> =
  [
    {
      name: 'fileStore',
      available: true,
      async open() {
        const dir = await mkdtemp(join(tmpdir(), 'svc-follow-'));
        const stores: LogStore[] = [];
        return {
          writerConfig: { backend: 'fileStore', location: dir, runId: 'r' },
          openFollowerStore: () => {
            const store = fileStore({ dir, fsync: false }) as LogStore;
            stores.push(store);
            return store;
          },
          recheckMs: 50,
          async cleanup() {
            await Promise.all(stores.map((store) => store.close?.()));
            await rm(dir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'redisStore',
      available: redisUp,
      async open() {
        const prefix = `${uniqueNamespace('follow')}:`;
        const proxy = await startTcpFaultProxy({
          host: '127.0.0.1',
          port: Number(new URL(REDIS_URL).port || 6379),
        });
        const stores: LogStore[] = [];
        return {
          writerConfig: { backend: 'redisStore', location: REDIS_URL, prefix, runId: 'r' },
          openFollowerStore: () => {
            const url = new URL(REDIS_URL);
            url.port = String(proxy.port);
            const store = redisStore({ url: url.toString(), prefix, onWarning: () => undefined }) as LogStore;
            stores.push(store);
            return store;
          },
          proxy,
          recheckMs: 1_000,
          async cleanup() {
            proxy.setRefusing(false);
            await Promise.all(stores.map((store) => store.close?.().catch(() => undefined)));
            await proxy.close();
            const redis = new Redis(REDIS_URL);
            const keys = await redis.keys(`${prefix}*`);
            if (keys.length > 0) await redis.del(...keys);
            await redis.quit();
          },
        };
      },
    },
    {
      name: 'postgresStore',
      available: postgresUp,
      async open() {
        const schema = uniqueNamespace('follow');
        const proxy = await startTcpFaultProxy({
          host: '127.0.0.1',
          port: Number(new URL(POSTGRES_URL).port || 5432),
        });
        const stores: LogStore[] = [];
        return {
          writerConfig: { backend: 'postgresStore', location: POSTGRES_URL, schema, runId: 'r' },
          openFollowerStore: () => {
            const url = new URL(POSTGRES_URL);
            url.port = String(proxy.port);
            const store = postgresStore({
              connectionString: url.toString(),
              schema,
              onWarning: () => undefined,
            }) as LogStore;
            stores.push(store);
            return store;
          },
          proxy,
          recheckMs: 1_000,
          async cleanup() {
            proxy.setRefusing(false);
            await Promise.all(stores.map((store) => store.close?.().catch(() => undefined)));
            await proxy.close();
            const client = new pg.Client({ connectionString: POSTGRES_URL });
            await client.connect();
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            await client.end();
          },
        };
      },
    },
  ];

/** A writer process and the last id it reported stored. */
interface Writer {
  child: ChildProcess;
  firstId: number;
  stored: number;
}

function spawnWriter(config: WriterProcessConfig): Promise<Writer> {
  const child = fork(writerScript, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, WRITER_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const writer: Writer = { child, firstId: -1, stored: -1 };
    child.on('message', (message: { ready?: number; stored?: number }) => {
      if (message.ready !== undefined) {
        writer.firstId = message.ready;
        resolve(writer);
      }
      if (message.stored !== undefined) writer.stored = message.stored;
    });
    child.once('exit', (code) => reject(new Error(`writer exited with ${code} before it was ready`)));
  });
}

const finish = JSON.stringify({ type: 'finish', finishReason: 'stop' });

/** Follows the log into `seen` until its `finish`. */
function followInto(store: LogStore, seen: StoredRunEvent[], recheckMs: number, afterId?: number) {
  const controller = new AbortController();
  const done = (async () => {
    for await (const event of followRunEvents(store, 'r', {
      afterId,
      recheckMs,
      isOver: async () => false,
      isLast: (stored) => stored.data === finish,
      signal: controller.signal,
    })) {
      seen.push(event);
    }
  })();
  return { done, stop: () => controller.abort() };
}

const textsOf = (events: StoredRunEvent[]) =>
  events.map((event) => (JSON.parse(event.data) as { text?: string; type: string }).text ?? event.data);

for (const place of places) {
  describe.skipIf(!place.available)(`followers of a run's events on ${place.name}`, () => {
    let opened: LogPlace | undefined;
    const children: ChildProcess[] = [];
    afterEach(async () => {
      for (const child of children.splice(0)) child.kill('SIGKILL');
      await opened?.cleanup();
      opened = undefined;
    });

    describe('when the worker writing them is SIGKILLed and another takes the run over', () => {
      it('should give every follower, early, late or resuming from Last-Event-ID, every event once and in order', {
        timeout: 90_000,
      }, async () => {
        opened = await place.open();
        const { recheckMs } = opened;
        const early: StoredRunEvent[] = [];
        const earlyFollower = followInto(opened.openFollowerStore(), early, recheckMs);

        const first = await spawnWriter({ ...opened.writerConfig, name: 'first' });
        children.push(first.child);
        expect(first.firstId).toBe(0);
        await eventually(async () => early.length >= 60, 30_000);
        // The store's connections of the followers drop (the network or the server went away).
        opened.proxy?.resetAll();
        await eventually(async () => first.stored >= 90, 30_000);
        first.child.kill('SIGKILL');
        await new Promise((resolve) => first.child.once('exit', resolve));

        // A web server following the run is gone too: its client comes back with Last-Event-ID.
        const resumed: StoredRunEvent[] = [];
        const lastEventId = early.at(-1)!.id;
        const resumedFollower = followInto(opened.openFollowerStore(), resumed, recheckMs, lastEventId);

        const second = await spawnWriter({ ...opened.writerConfig, name: 'second' });
        children.push(second.child);
        expect(second.firstId).toBeGreaterThan(90);
        await eventually(async () => second.stored >= 60, 30_000);
        // Starts after the takeover: replays the whole log, then follows.
        const late: StoredRunEvent[] = [];
        const lateFollower = followInto(opened.openFollowerStore(), late, recheckMs);
        await eventually(async () => second.stored >= 120, 30_000);
        second.child.send('finish');
        await new Promise((resolve) => second.child.once('exit', resolve));

        await Promise.all([earlyFollower.done, resumedFollower.done, lateFollower.done]);
        const ids = Array.from({ length: early.length }, (_, index) => index);
        expect(early.length).toBeGreaterThan(second.firstId + 120);
        expect(early.map((event) => event.id)).toEqual(ids);
        expect(late.map((event) => event.id)).toEqual(ids);
        expect(resumed.map((event) => event.id)).toEqual(ids.slice(lastEventId + 1));
        expect(textsOf(late)).toEqual(textsOf(early));
        // The second worker went on from the first one's last stored event, and the run ended with it.
        expect(textsOf(early).slice(0, 3)).toEqual(['first:0', 'first:1', 'first:2']);
        expect(textsOf(early).slice(second.firstId, second.firstId + 2)).toEqual(['second:0', 'second:1']);
        expect(early.at(-1)?.data).toBe(finish);
      });
    });
  });
}
