import type { Redis } from 'ioredis';
import type { RunQueryPage, RunSummary } from '../agent/durable/run-query.js';
import type { RunRecord, RunStatus } from '../agent/durable/store.js';
import { runSearchText, summarizeRun } from '../agent/durable/summarize-run.js';
import { evalScript } from './eval-script.js';
import { emptyRunCounts } from './page-of-runs.js';
import { DROP_EXPIRED, INDEX_OLD_RUN, QUERY_RUNS } from './redis-index-scripts.js';
import { encodeRunCursor, type NormalizedRunQuery, runSortValue } from './run-query-input.js';

/**
 * The summary fields `WRITE_RUN` files a run under: agent, session, tenant, model, tokens, cost, the
 * summary's JSON and the search text. createdAt and durationMs are the script's (an update learns the
 * run's createdAt there).
 */
export function redisIndexArgs(record: RunRecord): string[] {
  const summary = summarizeRun(record);
  return [
    summary.agentName,
    summary.sessionId ?? '',
    summary.tenant ?? '',
    summary.model ?? '',
    String(runSortValue(summary, 'tokens')),
    String(runSortValue(summary, 'costUsd')),
    JSON.stringify(summary),
    runSearchText(record),
  ];
}

/** Files runs stored before the index existed (`layout` 3), a page of the list's index at a time. */
export async function indexOldRedisRuns(
  redis: Redis,
  prefix: string,
  read: (id: string) => Promise<RunRecord | undefined>,
  onWarning: (message: string) => void,
): Promise<void> {
  for (let start = 0; ; start += 500) {
    const ids = await redis.zrange(`${prefix}runs`, start, start + 499);
    if (ids.length === 0) break;
    for (const id of ids) {
      let record: RunRecord | undefined;
      try {
        record = await read(id);
      } catch (error) {
        onWarning(`queryRuns could not index stored run "${id}": ${(error as Error).message}`);
      }
      if (!record) continue;
      const [agent, session, tenant, model, tokens, cost, json, text] = redisIndexArgs(record);
      await evalScript(
        redis,
        INDEX_OLD_RUN,
        1,
        `${prefix}run:${id}`,
        prefix,
        id,
        String(record.version),
        record.status,
        agent!,
        session!,
        tenant!,
        model!,
        String(record.createdAt),
        String(Math.max(0, record.updatedAt - record.createdAt)),
        tokens!,
        cost!,
        json!,
        text!,
      );
    }
  }
}

/** One page of the run index: expired runs dropped first, then one `QUERY_RUNS` script. */
export async function queryRedisRuns(
  redis: Redis,
  prefix: string,
  listKeys: readonly string[],
  query: NormalizedRunQuery,
): Promise<RunQueryPage> {
  await evalScript(redis, DROP_EXPIRED, listKeys.length, ...listKeys, prefix, String(Date.now()));
  const filters = [
    ...(query.agentName === undefined ? [] : [`agent:${query.agentName}`]),
    ...(query.sessionId === undefined ? [] : [`session:${query.sessionId}`]),
    ...(query.tenant === undefined ? [] : [`tenant:${query.tenant}`]),
    ...(query.model === undefined ? [] : [`model:${query.model}`]),
  ];
  const statuses = query.statuses ?? [];
  const [page, countsFlat, scanned] = (await evalScript(
    redis,
    QUERY_RUNS,
    0,
    prefix,
    query.sort,
    query.order === 'desc' ? '1' : '0',
    query.cursor === undefined ? '' : String(query.cursor.key),
    query.cursor?.id ?? '',
    String(query.limit + 1),
    query.createdFrom === undefined ? '' : String(query.createdFrom),
    query.createdTo === undefined ? '' : String(query.createdTo),
    query.text ?? '',
    String(statuses.length),
    ...statuses,
    ...filters,
  )) as [string[], string[], string[]];
  const runs: Array<{ summary: RunSummary; key: number }> = [];
  for (let i = 0; i < page.length; i += 5) {
    const summary = JSON.parse(page[i + 2]!) as RunSummary;
    summary.createdAt = Number(page[i + 3]);
    summary.durationMs = Number(page[i + 4]);
    runs.push({ summary, key: Number(page[i + 1]) });
  }
  const counts = emptyRunCounts();
  for (let i = 0; i < countsFlat.length; i += 2) {
    counts[countsFlat[i] as RunStatus] = Math.max(0, Number(countsFlat[i + 1]));
  }
  const shown = runs.slice(0, query.limit);
  const last = shown.at(-1);
  let nextCursor: string | undefined;
  if (runs.length > query.limit && last) {
    nextCursor = encodeRunCursor({ key: last.key, id: last.summary.id }, query.sort, query.order);
  } else if (scanned.length === 2) {
    // A text search that read its budget of summaries goes on from the last one it read.
    nextCursor = encodeRunCursor({ key: Number(scanned[1]), id: scanned[0]! }, query.sort, query.order);
  }
  return { runs: shown.map(({ summary }) => summary), ...(nextCursor && { nextCursor }), counts };
}
