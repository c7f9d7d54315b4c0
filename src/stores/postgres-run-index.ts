import type { QueryResult, QueryResultRow } from 'pg';
import type { RunQueryPage, RunSortKey, RunSummary } from '../agent/durable/run-query.js';
import type { RunRecord, RunStatus } from '../agent/durable/store.js';
import { runSearchText, summarizeRun } from '../agent/durable/summarize-run.js';
import { emptyRunCounts } from './page-of-runs.js';
import { encodeRunCursor, type NormalizedRunQuery, runSortValue } from './run-query-input.js';
import { StoredRunInvalidError } from './store-errors.js';
import { skippedRunWarning } from './stored-run.js';

// The summary columns of a run (`postgres-migrations.ts` v4), written by every write of its record with
// the eight parameters of `postgresSummaryValues`, from parameter number `first` on.

/** The columns an INSERT of a run adds for its summary, and their values (createdAt and updatedAt: SQL). */
export function summaryInsert(first: number, createdAt: string, updatedAt: string): [string, string] {
  const $ = (offset: number) => `$${first + offset}`;
  return [
    ', summary, agent_name, session_id, tenant, model, duration_ms, tokens, cost_key, search_text',
    `, ${$(0)}, ${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}, greatest(0, ${updatedAt}::bigint - ${createdAt}::bigint), ${$(5)}, ${$(6)}, ${$(7)}`,
  ];
}

/** The SET of an UPDATE of a run for its summary: createdAt and durationMs from the row's `created_at`. */
export function summaryUpdateSet(first: number, updatedAt: string): string {
  const $ = (offset: number) => `$${first + offset}`;
  const duration = `greatest(0, ${updatedAt}::bigint - created_at)`;
  return `, summary = ${$(0)}::jsonb || jsonb_build_object('createdAt', created_at, 'durationMs', ${duration}),
    agent_name = ${$(1)}, session_id = ${$(2)}, tenant = ${$(3)}, model = ${$(4)}, duration_ms = ${duration},
    tokens = ${$(5)}, cost_key = ${$(6)}, search_text = ${$(7)}`;
}

/** The parameters $7..$14 of a write of `record`. */
export function postgresSummaryValues(record: RunRecord): unknown[] {
  const summary = summarizeRun(record);
  return [
    JSON.stringify(summary),
    summary.agentName,
    summary.sessionId ?? null,
    summary.tenant ?? null,
    summary.model ?? null,
    runSortValue(summary, 'tokens'),
    runSortValue(summary, 'costUsd'),
    // PostgreSQL text holds no NUL character.
    runSearchText(record).replaceAll('\u0000', ''),
  ];
}

// A run's summary columns, written with its record: parameters $7.. after the record's six.
const INSERT = summaryInsert(7, '$3', '$4');
const UPDATE_SET = summaryUpdateSet(7, '$4');

/** The INSERT of a new run (`stored`: its record without writeId) with its summary columns. */
export function insertRunQuery(schema: string, record: RunRecord, stored: object): [string, unknown[]] {
  return [
    `INSERT INTO ${schema}.runs (id, status, version, created_at, updated_at, record, write_id${INSERT[0]})
     VALUES ($1, $2, 1, $3, $4, $5, $6${INSERT[1]}) ON CONFLICT (id) DO NOTHING`,
    [
      record.id,
      record.status,
      record.createdAt,
      record.updatedAt,
      stored,
      record.writeId,
      ...postgresSummaryValues(record),
    ],
  ];
}

/** The version-checked UPDATE of a run with its summary columns, answering the row's created_at. */
export function updateRunQuery(
  schema: string,
  id: string,
  expectedVersion: number,
  record: RunRecord,
  stored: object,
): [string, unknown[]] {
  return [
    `UPDATE ${schema}.runs SET status = $3, version = version + 1, updated_at = $4, record = $5,
     write_id = $6${UPDATE_SET} WHERE id = $1 AND version = $2 RETURNING created_at`,
    [
      id,
      expectedVersion,
      record.status,
      record.updatedAt,
      stored,
      record.writeId,
      ...postgresSummaryValues(record),
    ],
  ];
}

const SORT_COLUMNS: Record<RunSortKey, string> = {
  createdAt: 'created_at',
  durationMs: 'duration_ms',
  tokens: 'tokens',
  costUsd: 'cost_key',
};

/** What the run index needs of its store. */
export interface PostgresRunIndexOptions {
  /** The quoted schema. */
  schema: string;
  query: <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<QueryResult<R>>;
  retrying: <T>(operation: () => Promise<T>) => Promise<T>;
  /** Reads a row of `SELECT *` as a record (a `StoredRunInvalidError` when it cannot). */
  toRecord: (row: never) => RunRecord;
  onWarning: (message: string) => void;
}

/** `queryRuns` of `postgresStore`: rows stored before the index are summarised first, then one query. */
export function createPostgresRunIndex(options: PostgresRunIndexOptions) {
  const { schema, query, retrying, toRecord, onWarning } = options;
  // Rows that cannot be read are told once per store, not on every query.
  const skipped = new Set<string>();

  // Rows written before the summary columns (or by an older version of this library) get their summary.
  const summarizeOldRows = async () => {
    for (let after = ''; ; ) {
      const { rows } = await query<{ id: string }>(
        `SELECT * FROM ${schema}.runs WHERE summary IS NULL AND id > $1 ORDER BY id LIMIT 200`,
        [after],
      );
      if (rows.length === 0) return;
      for (const row of rows) {
        after = row.id;
        let record: RunRecord;
        try {
          record = toRecord(row as never);
        } catch (error) {
          if (!StoredRunInvalidError.isInstance(error)) throw error;
          if (!skipped.has(row.id)) onWarning(skippedRunWarning(error).replace('listRuns', 'queryRuns'));
          skipped.add(row.id);
          continue;
        }
        await query(
          `UPDATE ${schema}.runs SET status = status${summaryUpdateSet(3, 'updated_at')}
           WHERE id = $1 AND version = $2 AND summary IS NULL`,
          [record.id, record.version, ...postgresSummaryValues(record)],
        );
      }
    }
  };

  return async (normalized: NormalizedRunQuery): Promise<RunQueryPage> => {
    await retrying(summarizeOldRows);
    const { sort, order, limit, cursor } = normalized;
    const column = SORT_COLUMNS[sort];
    const values: unknown[] = [];
    const where = ['summary IS NOT NULL'];
    const param = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    const { statuses } = normalized;
    if (statuses?.length === 1) where.push(`status = ${param(statuses[0])}`);
    else if (statuses) where.push(`status = ANY(${param(statuses)}::text[])`);
    if (normalized.agentName !== undefined) where.push(`agent_name = ${param(normalized.agentName)}`);
    if (normalized.sessionId !== undefined) where.push(`session_id = ${param(normalized.sessionId)}`);
    if (normalized.tenant !== undefined) where.push(`tenant = ${param(normalized.tenant)}`);
    if (normalized.model !== undefined) where.push(`model = ${param(normalized.model)}`);
    if (normalized.createdFrom !== undefined) where.push(`created_at >= ${param(normalized.createdFrom)}`);
    if (normalized.createdTo !== undefined) where.push(`created_at < ${param(normalized.createdTo)}`);
    if (normalized.text !== undefined) {
      const pattern = `%${normalized.text.replace(/[\\%_]/g, (char) => `\\${char}`).replaceAll('\u0000', '')}%`;
      where.push(`search_text LIKE ${param(pattern)}`);
    }
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    if (cursor) {
      const after = `(${param(cursor.key)}, ${param(cursor.id)}::text COLLATE "C")`;
      where.push(`(${column}, id COLLATE "C") ${order === 'desc' ? '<' : '>'} ${after}`);
    }
    const pageSql = `SELECT summary, ${column} AS sort_key FROM ${schema}.runs WHERE ${where.join(' AND ')}
      ORDER BY ${column} ${direction}, id COLLATE "C" ${direction} LIMIT ${param(limit + 1)}`;
    const [page, counted] = await retrying(() =>
      Promise.all([
        query<{ summary: RunSummary; sort_key: string | number }>(pageSql, values),
        query<{ status: RunStatus; n: number }>(
          `SELECT status, sum(n)::int AS n FROM ${schema}.run_counts GROUP BY status`,
          [],
        ),
      ]),
    );
    const counts = emptyRunCounts();
    for (const { status, n } of counted.rows) if (status in counts) counts[status] = n;
    const shown = page.rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      runs: shown.map((row) => row.summary),
      ...(last &&
        page.rows.length > limit && {
          nextCursor: encodeRunCursor({ key: Number(last.sort_key), id: last.summary.id }, sort, order),
        }),
      counts,
    };
  };
}
