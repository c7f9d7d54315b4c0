import type { PoolClient } from 'pg';

/**
 * The store's schema, one entry per version, applied in order and never edited once released: a new
 * column or table is a new entry. `{schema}` is replaced by the quoted schema name.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE {schema}.runs (
     id text PRIMARY KEY,
     status text NOT NULL,
     version integer NOT NULL,
     created_at bigint NOT NULL,
     updated_at bigint NOT NULL,
     record jsonb NOT NULL
   );
   CREATE INDEX runs_created_at ON {schema}.runs (created_at DESC);
   CREATE TABLE {schema}.session_items (
     session_id text NOT NULL,
     seq bigserial NOT NULL,
     item jsonb NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE {schema}.session_keys (
     session_id text NOT NULL,
     key text NOT NULL,
     PRIMARY KEY (session_id, key)
   );`,
  `ALTER TABLE {schema}.runs ADD COLUMN write_id text;
   CREATE INDEX runs_status_created_at ON {schema}.runs (status, created_at DESC);
   CREATE INDEX runs_status_updated_at ON {schema}.runs (status, updated_at);`,
  // Run event logs (a log expires with its last row's expires_at) and compare-and-set shared values.
  `CREATE TABLE {schema}.run_events (
     run_id text NOT NULL,
     id integer NOT NULL,
     data text NOT NULL,
     expires_at bigint,
     PRIMARY KEY (run_id, id)
   );
   CREATE INDEX run_events_expires_at ON {schema}.run_events (expires_at) WHERE expires_at IS NOT NULL;
   CREATE TABLE {schema}.shared_values (
     key text PRIMARY KEY,
     version integer NOT NULL,
     value text NOT NULL,
     expires_at bigint
   );
   CREATE INDEX shared_values_expires_at ON {schema}.shared_values (expires_at) WHERE expires_at IS NOT NULL;`,
  // The run index of `queryRuns`: each run's summary in columns written with its record, one index per
  // filter and sort, keyset-ordered on (sort value, id in byte order). Rows written before it have no
  // summary yet (`summary IS NULL`): the first query fills them in. The indexes of version 2 are replaced
  // by the ones ending in id. Text search uses a pg_trgm index when the extension can be had.
  `ALTER TABLE {schema}.runs
     ADD COLUMN summary jsonb,
     ADD COLUMN agent_name text,
     ADD COLUMN session_id text,
     ADD COLUMN tenant text,
     ADD COLUMN model text,
     ADD COLUMN duration_ms bigint,
     ADD COLUMN tokens bigint,
     ADD COLUMN cost_key double precision,
     ADD COLUMN search_text text;
   DROP INDEX {schema}.runs_created_at;
   DROP INDEX {schema}.runs_status_created_at;
   CREATE INDEX runs_unsummarized ON {schema}.runs (id) WHERE summary IS NULL;
   CREATE INDEX runs_by_created ON {schema}.runs (created_at, id COLLATE "C");
   CREATE INDEX runs_by_duration ON {schema}.runs (duration_ms, id COLLATE "C");
   CREATE INDEX runs_by_tokens ON {schema}.runs (tokens, id COLLATE "C");
   CREATE INDEX runs_by_cost ON {schema}.runs (cost_key, id COLLATE "C");
   CREATE INDEX runs_by_status ON {schema}.runs (status, created_at, id COLLATE "C");
   CREATE INDEX runs_by_agent ON {schema}.runs (agent_name, created_at, id COLLATE "C");
   CREATE INDEX runs_by_agent_status ON {schema}.runs (agent_name, status, created_at, id COLLATE "C");
   CREATE INDEX runs_by_session ON {schema}.runs (session_id, created_at, id COLLATE "C");
   CREATE INDEX runs_by_tenant ON {schema}.runs (tenant, created_at, id COLLATE "C");
   CREATE INDEX runs_by_model ON {schema}.runs (model, created_at, id COLLATE "C");
   -- Runs per status for the list's counts, kept by a trigger: reading four sums costs nothing at any size,
   -- where counting the rows read them all. 16 rows per status (by the id's hash) keep concurrent writes
   -- of runs from queueing on one counter row.
   CREATE TABLE {schema}.run_counts (
     status text NOT NULL,
     shard smallint NOT NULL,
     n bigint NOT NULL,
     PRIMARY KEY (status, shard)
   );
   INSERT INTO {schema}.run_counts (status, shard, n)
     SELECT s.status, g.shard, 0
     FROM unnest(ARRAY['running', 'interrupted', 'completed', 'failed']) AS s(status),
       generate_series(0, 15) AS g(shard);
   UPDATE {schema}.run_counts c SET n = x.n
     FROM (SELECT status, hashtext(id) & 15 AS shard, count(*) AS n FROM {schema}.runs GROUP BY 1, 2) x
     WHERE c.status = x.status AND c.shard = x.shard;
   CREATE FUNCTION {schema}.count_runs() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       UPDATE {schema}.run_counts SET n = n + 1 WHERE status = NEW.status AND shard = hashtext(NEW.id) & 15;
     ELSIF TG_OP = 'DELETE' THEN
       UPDATE {schema}.run_counts SET n = n - 1 WHERE status = OLD.status AND shard = hashtext(OLD.id) & 15;
     ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
       UPDATE {schema}.run_counts SET n = n + CASE WHEN status = NEW.status THEN 1 ELSE -1 END
         WHERE shard = hashtext(NEW.id) & 15 AND status IN (OLD.status, NEW.status);
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER runs_count AFTER INSERT OR DELETE OR UPDATE OF status ON {schema}.runs
     FOR EACH ROW EXECUTE FUNCTION {schema}.count_runs();
   DO $$
   DECLARE trgm_schema name;
   BEGIN
     BEGIN
       IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_trgm') THEN
         CREATE EXTENSION pg_trgm;
       END IF;
     EXCEPTION WHEN OTHERS THEN
       RAISE NOTICE 'pg_trgm is not available (%): text search scans the summaries', SQLERRM;
     END;
     SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = 'pg_trgm';
     IF trgm_schema IS NOT NULL THEN
       EXECUTE format('CREATE INDEX runs_search_text ON {schema}.runs USING gin (search_text %I.gin_trgm_ops)',
         trgm_schema);
     END IF;
   END $$;`,
];

// Any constant shared by every process migrating this store; the schema name is hashed in beside it.
const MIGRATION_LOCK = 0x53564341;

/**
 * Brings `schema` to the latest version under an advisory lock, so processes starting together migrate
 * once. Each version's SQL and its row in `schema_migrations` commit together.
 */
export async function migratePostgres(client: PoolClient, schema: string): Promise<void> {
  const quoted = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    for (let version = current + 1; version <= POSTGRES_MIGRATIONS.length; version++) {
      await client.query(POSTGRES_MIGRATIONS[version - 1]!.replaceAll('{schema}', quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** `"name"` with inner quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
