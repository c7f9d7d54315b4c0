import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { eventually } from '../helpers/eventually.js';
import { POSTGRES_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const postgresUp = await serviceAvailable('postgres');
const schema = uniqueNamespace('pg_shared');

describe.skipIf(!postgresUp)('postgresStore shared state', () => {
  const store = postgresStore({ connectionString: POSTGRES_URL, schema, config: { max: 2 } });
  afterAll(async () => {
    await store.close();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  describe('when event logs and values expire', () => {
    it('should delete their rows on pruneRuns and keep the live ones', async () => {
      await store.appendRunEvents('short', 0, ['e0', 'e1'], { ttlMs: 50 });
      await store.appendRunEvents('long', 0, ['e0'], { ttlMs: 60_000 });
      // A log refreshed by its last append lives on, though its first rows carry the old expiry.
      await store.appendRunEvents('refreshed', 0, ['e0'], { ttlMs: 50 });
      await store.appendRunEvents('refreshed', 1, ['e1'], { ttlMs: 60_000 });
      await store.setValueIf('short', 0, 'v', { ttlMs: 50 });
      await store.setValueIf('kept', 0, 'v');
      // Past the 50 ms ttl by PostgreSQL's own clock, which the test cannot move.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await store.pruneRuns();
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        const events = await client.query<{ run_id: string; n: string }>(
          `SELECT run_id, count(*) AS n FROM "${schema}".run_events GROUP BY run_id ORDER BY run_id`,
        );
        expect(events.rows).toEqual([
          { run_id: 'long', n: '1' },
          { run_id: 'refreshed', n: '2' },
        ]);
        const values = await client.query(`SELECT key FROM "${schema}".shared_values ORDER BY key`);
        expect(values.rows).toEqual([{ key: 'kept' }]);
      } finally {
        await client.end();
      }
      expect((await store.readRunEvents('refreshed')).map((event) => event.id)).toEqual([0, 1]);
    });
  });

  describe('when the store was given your pool', () => {
    it('should take one connection to listen and destroy it on close, leaving your pool usable', async () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 3 });
      const own = postgresStore({ pool, schema });
      await own.getValue('warm-up');
      const before = pool.totalCount;
      const received: string[] = [];
      await own.onSignal('mine', (message) => received.push(message));
      expect(pool.totalCount - pool.idleCount).toBe(1);
      await own.signal('mine', 'hello');
      await eventually(async () => received.length === 1);
      await own.close();
      // Destroyed, not handed back still LISTENing.
      await eventually(async () => pool.totalCount - pool.idleCount === 0 && pool.totalCount <= before);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await pool.end();
    });
  });
});
