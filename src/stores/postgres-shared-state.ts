import type { QueryResult, QueryResultRow } from 'pg';
import type { RunEventLogStore, SharedValueStore, StoredRunEvent } from '../agent/durable/store.js';
import { CallBatcher } from './call-batcher.js';
import { encodeSignal } from './postgres-signals.js';
import type { AppendAndSignal } from './run-events-signal.js';
import {
  checkAppendRunEvents,
  checkGetValue,
  checkReadRunEvents,
  checkSetValueIf,
  checkSignal,
} from './shared-state-checks.js';
import { RunEventGapError } from './store-errors.js';

/** What the event log and the values need from `postgresStore`. */
export interface PostgresSharedStateOptions {
  /** The quoted schema name. */
  schema: string;
  /** One query on the store's pool, with its timeout. */
  query: <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<QueryResult<R>>;
  /** Runs an operation that is safe to repeat again on a fresh connection when its connection was lost. */
  retrying: <T>(operation: () => Promise<T>) => Promise<T>;
  /** The PostgreSQL channel of the store's signals (`signalChannelOf`): an append can NOTIFY on it. */
  signalChannel: string;
}

/** `RunEventLogStore` and `SharedValueStore` on PostgreSQL, plus `pruneExpired`. */
export interface PostgresSharedState extends RunEventLogStore, SharedValueStore {
  /** `appendRunEvents` and, in the same statement and commit, the signal (once the events are stored). */
  appendRunEventsAndSignal: AppendAndSignal;
  /** Deletes expired event logs and values (reads already treat them as absent). */
  pruneExpired(): Promise<void>;
}

// The database's clock, in epoch milliseconds: expiry is judged by one clock for every server.
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Event logs in `run_events` (one row per event, primary key (run_id, id)) and values in `shared_values`.
 * A log's expiry is its last row's `expires_at`: an append writes its rows with the new expiry, and an
 * append with nothing new (a retry) moves the last stored row's, so refreshing a log costs one row, not
 * one per event. Only such an append locks an existing row, so two racing appends cannot deadlock. The gap check, the
 * skipping of stored ids and the insert are one statement; two writers of the same ids meet on the
 * primary key (`ON CONFLICT DO NOTHING`), so a retried or raced append never duplicates an event.
 */
export function createPostgresSharedState({
  schema,
  query,
  retrying,
  signalChannel,
}: PostgresSharedStateOptions): PostgresSharedState {
  const events = `${schema}.run_events`;
  const values = `${schema}.shared_values`;
  // $1: the appends as a JSON array of { run_id, first_id, events (an array of texts), ttl (ms or null),
  // notify (a signal's payload or null) }, at most one per run; $2: the signals' channel. Per run, as one
  // append alone: the gap check, the skipping of stored ids, the insert, the expiry's refresh, and the
  // NOTIFY of an append that stored its events (delivered at commit, once they are readable).
  const appendStatement = `
    WITH req AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb)
        AS r(run_id text, first_id integer, events jsonb, ttl bigint, notify text)
    ), state AS (
      SELECT req.run_id, req.first_id, req.events, req.ttl, req.notify, last.id AS last_id,
             coalesce(last.id + 1, 0) AS next_id,
             coalesce(last.expires_at <= ${NOW_MS}, false) AS expired,
             coalesce(req.ttl + ${NOW_MS}, last.expires_at) AS expires_at
      FROM req LEFT JOIN LATERAL (
        SELECT id, expires_at FROM ${events} WHERE run_id = req.run_id ORDER BY id DESC LIMIT 1
      ) last ON true
    ), inserted AS (
      INSERT INTO ${events} (run_id, id, data, expires_at)
      SELECT s.run_id, s.first_id + e.ord::integer - 1, e.value, s.expires_at
      FROM state s, jsonb_array_elements_text(s.events) WITH ORDINALITY AS e(value, ord)
      WHERE NOT s.expired AND s.first_id <= s.next_id AND s.first_id + e.ord - 1 >= s.next_id
      ON CONFLICT (run_id, id) DO NOTHING
    ), touched AS (
      UPDATE ${events} AS row SET expires_at = s.expires_at
      FROM state s
      WHERE row.run_id = s.run_id AND row.id = s.last_id AND s.ttl IS NOT NULL AND NOT s.expired
        AND s.first_id + jsonb_array_length(s.events) <= s.next_id
    ), notified AS (
      SELECT pg_notify($2, s.notify) FROM state s
      WHERE s.notify IS NOT NULL AND NOT s.expired AND s.first_id <= s.next_id
    )
    SELECT run_id, next_id, expired, (SELECT count(*) FROM notified) AS notified FROM state`;
  type AppendCall = {
    run_id: string;
    first_id: number;
    events: readonly string[];
    ttl: number | null;
    notify: string | null;
  };
  type AppendAnswer = { next_id: number; expired: boolean };
  // Concurrent appends (one per run at a time) share a statement and its commit: under load, many runs'
  // batches cost one round trip and one WAL flush (bench/web-relay). One statement in flight: the relay's
  // latency was the same as with two, and queued runs' checkpoints found more of the pool free
  // (bench/src/durable.mjs; results under bench/results/).
  const appends = new CallBatcher<AppendCall, AppendAnswer>(
    async (calls) => {
      const { rows } = await retrying(() =>
        query<AppendAnswer & { run_id: string }>(appendStatement, [JSON.stringify(calls), signalChannel]),
      );
      const byRun = new Map(rows.map((row) => [row.run_id, row]));
      return calls.map((call) => byRun.get(call.run_id)!);
    },
    { lanes: 1, maxBatch: 200, keyOf: (call) => call.run_id },
  );
  const purgeExpiredLog = `
    DELETE FROM ${events} WHERE run_id = $1
      AND (SELECT expires_at FROM ${events} WHERE run_id = $1 ORDER BY id DESC LIMIT 1) <= ${NOW_MS}`;
  const live = `(expires_at IS NULL OR expires_at > ${NOW_MS})`;
  const expiryOf = (ttlMs: number | undefined) => (ttlMs === undefined ? null : ttlMs);

  async function append(
    runId: string,
    firstId: number,
    appended: readonly string[],
    options: { ttlMs?: number } | undefined,
    notify: string | null,
  ): Promise<void> {
    const ttlMs = checkAppendRunEvents(runId, firstId, appended, options);
    const call = { run_id: runId, first_id: firstId, events: appended, ttl: expiryOf(ttlMs), notify };
    for (let attempt = 0; ; attempt++) {
      const { next_id: nextId, expired } = await appends.submit(call);
      if (!expired) {
        if (firstId > nextId) throw new RunEventGapError({ runId, firstId, nextId });
        return;
      }
      // An expired log is absent: remove it, then append to an empty log (once; a log cannot expire twice).
      if (attempt > 0) throw new RunEventGapError({ runId, firstId, nextId: 0 });
      await retrying(() => query(purgeExpiredLog, [runId]));
    }
  }

  return {
    appendRunEvents: (runId, firstId, appended, options) => append(runId, firstId, appended, options, null),
    appendRunEventsAndSignal: (runId, firstId, appended, options, signal) => {
      checkSignal(signal.channel, signal.message);
      return append(runId, firstId, appended, options, encodeSignal(signal.channel, signal.message));
    },
    async readRunEvents(runId, afterId, limit) {
      checkReadRunEvents(runId, afterId, limit);
      const { rows } = await retrying(() =>
        query<{ id: number; data: string }>(
          `SELECT id, data FROM ${events} WHERE run_id = $1 AND id > $2
             AND coalesce((SELECT expires_at > ${NOW_MS} FROM ${events}
                           WHERE run_id = $1 ORDER BY id DESC LIMIT 1), true)
           ORDER BY id LIMIT $3`,
          [runId, afterId ?? -1, limit ?? null],
        ),
      );
      return rows.map((row): StoredRunEvent => ({ id: row.id, data: row.data }));
    },
    async getValue(key) {
      checkGetValue(key);
      const { rows } = await retrying(() =>
        query<{ version: number; value: string }>(
          `SELECT version, value FROM ${values} WHERE key = $1 AND ${live}`,
          [key],
        ),
      );
      return rows[0] ? { value: rows[0].value, version: rows[0].version } : { value: undefined, version: 0 };
    },
    // Not retried on a lost connection: a repeat of an applied write would answer false. The caller sees
    // StoreUnavailableError and reads the value again.
    async setValueIf(key, version, value, options) {
      const ttlMs = checkSetValueIf(key, version, value, options);
      // $3 is the ttl or null (then the value does not expire: null plus the clock is null).
      const expiresAt = `$3::bigint + ${NOW_MS}`;
      if (version === 0 && value === undefined) {
        const { rows } = await query<{ absent: boolean }>(
          `SELECT NOT EXISTS (SELECT 1 FROM ${values} WHERE key = $1 AND ${live}) AS absent`,
          [key],
        );
        return rows[0]!.absent;
      }
      if (version === 0) {
        // An expired row is replaced as if absent; a live one (a racing writer's) is left alone.
        const { rowCount } = await query(
          `INSERT INTO ${values} AS v (key, version, value, expires_at) VALUES ($1, 1, $2, ${expiresAt})
           ON CONFLICT (key) DO UPDATE SET version = 1, value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
           WHERE v.expires_at IS NOT NULL AND v.expires_at <= ${NOW_MS}`,
          [key, value, expiryOf(ttlMs)],
        );
        return rowCount === 1;
      }
      if (value === undefined) {
        const { rowCount } = await query(
          `DELETE FROM ${values} WHERE key = $1 AND version = $2 AND ${live}`,
          [key, version],
        );
        return rowCount === 1;
      }
      const { rowCount } = await query(
        `UPDATE ${values} SET version = version + 1, value = $4, expires_at = ${expiresAt}
         WHERE key = $1 AND version = $2 AND ${live}`,
        [key, version, expiryOf(ttlMs), value],
      );
      return rowCount === 1;
    },
    async pruneExpired() {
      await query(
        `DELETE FROM ${events} WHERE run_id IN (
           SELECT c.run_id FROM (SELECT DISTINCT run_id FROM ${events} WHERE expires_at <= ${NOW_MS}) c
           WHERE (SELECT expires_at FROM ${events} l WHERE l.run_id = c.run_id ORDER BY id DESC LIMIT 1)
                 <= ${NOW_MS})`,
        [],
      );
      await query(`DELETE FROM ${values} WHERE expires_at <= ${NOW_MS}`, []);
    },
  };
}
