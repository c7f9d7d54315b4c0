import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import type { Store } from '../../../src/agent/durable/store.js';
import { fileStore } from '../../../src/stores/file-store.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { postgresStore } from '../../../src/stores/postgres-store.js';
import { redisStore } from '../../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../../helpers/infra-services.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const TURNS = 100;
const env = useAgentTestEnv();
const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);
const script = join(import.meta.dirname, 'fixtures/session-turns.ts');

interface Turns {
  /** Runs turn `i` in taker `i % 2` and waits for it. */
  run(turn: number): Promise<void>;
  store: Store;
  close(): Promise<void>;
}

function spawnTaker(config: Record<string, unknown>): Promise<ChildProcess> {
  const child = fork(script, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, SESSION_CONFIG: JSON.stringify(config), SESSION_API_KEY: env.emu.apiKey },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`session process exited with ${code}`)));
  });
}

/** Two processes sharing the store that `config` names; `store` is the test's own view of it. */
async function twoProcesses(
  config: Record<string, unknown>,
  store: Store,
  cleanup: () => Promise<void>,
): Promise<Turns> {
  const full = { ...config, baseURL: env.emu.baseURL };
  const takers = await Promise.all([spawnTaker(full), spawnTaker(full)]);
  return {
    store,
    run: (turn) =>
      new Promise((resolve, reject) => {
        const taker = takers[turn % 2]!;
        taker.once('message', (reply: { status: string }) =>
          reply.status === 'completed' ? resolve() : reject(new Error(`turn ${turn}: ${reply.status}`)),
        );
        taker.send({ turn });
      }),
    async close() {
      await Promise.all(
        takers.map(
          (taker) =>
            new Promise((resolve) => {
              taker.once('exit', resolve);
              taker.send('exit');
            }),
        ),
      );
      await store.close?.();
      await cleanup();
    },
  };
}

const stores: Array<{ name: string; skip?: boolean; open(): Promise<Turns> }> = [
  {
    // One process can hold a memory store: two agents (as two processes would) share it.
    name: 'memoryStore',
    async open() {
      const store = memoryStore();
      const agents = [0, 1].map(() => new Agent({ client: env.client, model: 'svc-3.5-flash', store }));
      return {
        store,
        run: async (turn) => {
          await agents[turn % 2]!.run(`turn ${turn}`, { session: 'conversation' });
        },
        close: async () => {},
      };
    },
  },
  {
    name: 'fileStore',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'svc-sessions-'));
      return twoProcesses({ kind: 'file', dir }, fileStore({ dir }), () =>
        rm(dir, { recursive: true, force: true }),
      );
    },
  },
  {
    name: 'redisStore',
    skip: !redisUp,
    async open() {
      const prefix = `${uniqueNamespace('sess')}:`;
      return twoProcesses(
        { kind: 'redis', url: REDIS_URL, prefix },
        redisStore({ url: REDIS_URL, prefix }),
        async () => {
          const redis = new Redis(REDIS_URL);
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        },
      );
    },
  },
  {
    name: 'postgresStore',
    skip: !postgresUp,
    async open() {
      const schema = uniqueNamespace('sess');
      return twoProcesses(
        { kind: 'postgres', url: POSTGRES_URL, schema },
        postgresStore({ connectionString: POSTGRES_URL, schema }),
        async () => {
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        },
      );
    },
  },
];

for (const each of stores) {
  describe.skipIf(each.skip)(`a session on ${each.name}`, () => {
    let turns: Turns;
    beforeAll(async () => {
      turns = await each.open();
    });
    afterAll(async () => {
      await turns?.close();
    });

    it(`should keep ${TURNS} turns alternating between two processes in order, without duplicates`, async () => {
      for (let turn = 0; turn < TURNS; turn++) await turns.run(turn);
      const items = await turns.store.getItems('conversation');
      expect(items).toHaveLength(2 * TURNS);
      items.forEach((item, i) => {
        if (i % 2 === 0) expect(item).toMatchObject({ role: 'user', content: `turn ${i / 2}` });
        else expect(item.role).toBe('assistant');
      });
      // Each turn was sent the whole history before it.
      const requests = chatRequests(env.emu);
      expect(requests).toHaveLength(TURNS);
      expect(requests.map((request) => request.messages.length)).toEqual(
        Array.from({ length: TURNS }, (_, i) => 2 * i + 1),
      );
    }, 60_000);
  });
}
