import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventLogStore, Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { POSTGRES_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

type LogStore = Store & RunEventLogStore;

const postgresUp = await serviceAvailable('postgres');

/** One append of a wave: which run, from which id, how many events, whether it renews the expiry. */
interface Append {
  run: number;
  firstId: number;
  count: number;
  ttl: boolean;
}

const appendArbitrary = fc.record({
  run: fc.integer({ min: 0, max: 3 }),
  firstId: fc.integer({ min: 0, max: 8 }),
  count: fc.integer({ min: 0, max: 4 }),
  ttl: fc.boolean(),
});

/** Sends each wave's appends at once (so the PostgreSQL store batches them), waves one after another. */
async function play(store: LogStore, prefix: string, waves: Append[][]): Promise<string[]> {
  const outcomes: string[] = [];
  for (const wave of waves) {
    const settled = await Promise.allSettled(
      wave.map(({ run, firstId, count, ttl }) =>
        store.appendRunEvents(
          `${prefix}-${run}`,
          firstId,
          Array.from({ length: count }, (_, index) => `r${run}:${firstId + index}`),
          ttl ? { ttlMs: 600_000 } : {},
        ),
      ),
    );
    for (const each of settled) {
      outcomes.push(each.status === 'fulfilled' ? 'ok' : (each.reason as Error).name);
    }
  }
  return outcomes;
}

async function logsOf(store: LogStore, prefix: string): Promise<string[][]> {
  return Promise.all(
    [0, 1, 2, 3].map(async (run) =>
      (await store.readRunEvents(`${prefix}-${run}`)).map((event) => `${event.id}=${event.data}`),
    ),
  );
}

describe.skipIf(!postgresUp)("postgresStore's batched event-log appends", () => {
  const schema = uniqueNamespace('batched');
  let store: LogStore;
  beforeAll(() => {
    store = postgresStore({ connectionString: POSTGRES_URL, schema }) as LogStore;
  });
  afterAll(async () => {
    await store.close?.();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  describe('when appends of several runs arrive together', () => {
    it('should store and refuse exactly what the same appends one at a time store and refuse', async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(appendArbitrary, { maxLength: 8 }), { maxLength: 6 }),
          async (waves) => {
            const prefix = `p${round++}`;
            const simple = memoryStore() as LogStore;
            const expected = await play(simple, prefix, waves);
            const actual = await play(store, prefix, waves);
            expect(actual).toEqual(expected);
            expect(await logsOf(store, prefix)).toEqual(await logsOf(simple, prefix));
            await simple.close?.();
          },
        ),
        { numRuns: 40 },
      );
    }, 120_000);
  });
});
