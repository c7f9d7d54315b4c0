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
