import { readRunState } from '../../agent/durable/read-run-state.js';
import type { RunQuery, RunSortKey, RunSummary } from '../../agent/durable/run-query.js';
import type { RunRecord, RunStatus, Store } from '../../agent/durable/store.js';
import { summarizeRun } from '../../agent/durable/summarize-run.js';
import type { AgentStep } from '../../agent/run-result.js';
import type { PendingToolCall } from '../../agent/run-state.js';
import type { ChatMessage } from '../../api/types/chat.js';
import { queryRuns } from '../../stores/query-runs.js';
import { StoreInputError } from '../../stores/store-errors.js';
import { jsonResponse } from '../web-error.js';
import { exportRoute, forkRoute } from './inspector-actions.js';
import { agentUnavailableReason, type InspectorAgent } from './inspector-agents.js';
import { badRequest, checkId, requireRun } from './inspector-request.js';
import { deriveCheckpoints } from './run-checkpoints.js';
import { buildRunTimeline } from './run-timeline.js';

/** What the inspector's JSON routes share: the store, the agents and the forks this process runs. */
export interface InspectorContext {
  store: Store;
  agents: Readonly<Record<string, InspectorAgent>>;
  maxBodyBytes: number;
  /** Aborted when the handler closes: the forks it started stop. */
  signal: AbortSignal;
  /** The forks this process started, until they end. */
  forks: Set<Promise<unknown>>;
  generateId?: () => string;
}

const STATUSES: readonly RunStatus[] = ['running', 'interrupted', 'completed', 'failed'];
// Any role's messages may hold anything: a run's state never reaches the page unparsed by this owner.
const anyOwner = { hasFunctionTool: () => true };

/**
 * The JSON routes under `<base>/api`: `GET runs` (filter, sort, page, live counts), `GET runs/:id` (the run
 * with its timeline, checkpoints and messages), `GET runs/:id/version` (cheap, for live updates),
 * `GET runs/:id/events?after=`, `GET sessions/:id`, `POST runs/:id/fork`, `GET runs/:id/export`.
 * Answers undefined for a path that is none of them.
 */
export async function routeInspectorApi(
  context: InspectorContext,
  request: Request,
  path: string,
): Promise<Response | undefined> {
  const url = new URL(request.url);
  const method = request.method;
  if (path === '/runs' && method === 'GET') return jsonResponse(200, await listRuns(context, url));
  const run = /^\/runs\/([^/]+)(?:\/(version|events|fork|export))?$/.exec(path);
  if (run) {
    const id = checkId(decodeURIComponent(run[1]!), 'runId');
    const action = run[2];
    if (action === undefined && method === 'GET') return jsonResponse(200, await describeRun(context, id));
    if (action === 'version' && method === 'GET') {
      const record = await requireRun(context.store, id);
      return jsonResponse(200, {
        version: record.version,
        status: record.status,
        updatedAt: record.updatedAt,
      });
    }
    if (action === 'events' && method === 'GET') return jsonResponse(200, await readEvents(context, id, url));
    if (action === 'fork' && method === 'POST') return forkRoute(context, id, request);
    if (action === 'export' && method === 'GET') return exportRoute(context, id, url);
  }
  const session = /^\/sessions\/([^/]+)$/.exec(path);
  if (session && method === 'GET') {
    return jsonResponse(
      200,
      await describeSession(context, checkId(decodeURIComponent(session[1]!), 'sessionId')),
    );
  }
  return undefined;
}

/** `GET runs?status=a,b&agent=&session=&tenant=&model=&from=&to=&q=&sort=&order=&limit=&cursor=`. */
async function listRuns(context: InspectorContext, url: URL) {
  const params = url.searchParams;
  const query: RunQuery = {};
  const status = params.get('status');
  if (status) {
    const statuses = status.split(',');
    for (const value of statuses) {
      if (!STATUSES.includes(value as RunStatus))
        throw badRequest(`status: must be one of ${STATUSES.join(', ')}`);
    }
    query.status = statuses as RunStatus[];
  }
  const text = (name: string, field: 'agentName' | 'sessionId' | 'tenant' | 'model' | 'text' | 'cursor') => {
    const value = params.get(name);
    if (value) query[field] = value;
  };
  text('agent', 'agentName');
  text('session', 'sessionId');
  text('tenant', 'tenant');
  text('model', 'model');
  text('q', 'text');
  text('cursor', 'cursor');
  const from = timeParam(params, 'from');
  if (from !== undefined) query.createdFrom = from;
  const to = timeParam(params, 'to');
  if (to !== undefined) query.createdTo = to;
  const sort = params.get('sort');
  if (sort) query.sort = sort as RunSortKey;
  const order = params.get('order');
  if (order) query.order = order as 'asc' | 'desc';
  const limit = params.get('limit');
  if (limit) query.limit = /^\d{1,4}$/.test(limit) ? Number(limit) : Number.NaN;
  try {
    return await queryRuns(context.store, query);
  } catch (error) {
    // The query's own checks name the field and the rule: the caller's mistake.
    if (StoreInputError.isInstance(error)) throw badRequest(error.message);
    throw error;
  }
}

/** `from` / `to`: epoch milliseconds or an ISO date. */
function timeParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (!value) return undefined;
  const time = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(time)) throw badRequest(`${name}: must be epoch milliseconds or an ISO date`);
  return time;
}

/** The run as the page shows it. */
async function describeRun(context: InspectorContext, id: string) {
  const { store, agents } = context;
  const record = await requireRun(store, id);
  const { messages, steps, pendingToolCalls, stateError } = await readStateOf(store, record);
  const unavailable = agentUnavailableReason(agents, record.agentName);
  const factory = typeof agents[record.agentName] === 'function';
  return {
    summary: summarizeRun(record),
    record: {
      id: record.id,
      agentName: record.agentName,
      status: record.status,
      version: record.version,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      interruptions: record.interruptions,
      ...(record.error !== undefined && { error: record.error }),
      ...(record.text !== undefined && { text: record.text }),
      ...(record.lastAgent !== undefined && { lastAgent: record.lastAgent }),
      ...(record.session && { sessionId: record.session.id, sessionStart: record.session.start }),
      ...(record.inFlight && { inFlight: record.inFlight }),
      ...(record.forkedFrom && { forkedFrom: record.forkedFrom }),
      ...(record.tenant !== undefined && { tenant: record.tenant }),
    },
    timeline: buildRunTimeline(record),
    checkpoints: deriveCheckpoints(messages, steps),
    messages,
    steps,
    pendingToolCalls,
    ...(stateError !== undefined && { stateError }),
    forks: await forksOf(store, record),
    actions: {
      fork: unavailable ? { enabled: false, reason: unavailable } : { enabled: true, canChange: factory },
      export: unavailable ? { enabled: false, reason: unavailable } : { enabled: true },
    },
  };
}

/**
 * The run's messages (the session's history put back in front), steps and pending calls. A state that
 * cannot be read (damaged, a newer version, its session cleared) is shown as the record holds it, with why.
 */
async function readStateOf(store: Store, record: RunRecord) {
  try {
    const { state } = await readRunState(store, record, anyOwner);
    return { messages: state.messages, steps: state.steps, pendingToolCalls: state.pendingToolCalls };
  } catch (error) {
    const raw = record.state as { messages?: unknown; steps?: unknown; pendingToolCalls?: unknown };
    const list = <T>(value: unknown) => (Array.isArray(value) ? (value as T[]) : []);
    return {
      messages: list<ChatMessage>(raw.messages),
      steps: list<AgentStep>(raw.steps),
      pendingToolCalls: list<PendingToolCall>(raw.pendingToolCalls),
      stateError: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * The runs forked from `record`: among the runs of its agent created since it (a fork is never older), those
 * whose `forkedFrom` names it. Read by pages of the store's index, at most a few thousand runs.
 */
async function forksOf(store: Store, record: RunRecord): Promise<Array<{ runId: string; step: number }>> {
  const forks: Array<{ runId: string; step: number }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const query: RunQuery = { agentName: record.agentName, createdFrom: record.createdAt, limit: 500 };
    if (cursor) query.cursor = cursor;
    const result = await queryRuns(store, query);
    for (const run of result.runs) {
      if (run.forkedFrom?.runId === record.id) forks.push({ runId: run.id, step: run.forkedFrom.step });
    }
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return forks;
}

/** `GET runs/:id/events?after=N&limit=M`: the run's stored event log, when the store keeps one. */
async function readEvents(context: InspectorContext, id: string, url: URL) {
  const after = url.searchParams.get('after');
  const limit = url.searchParams.get('limit');
  if (after !== null && !/^(-1|\d{1,10})$/.test(after)) throw badRequest('after: must be an event id or -1');
  if (limit !== null && !/^\d{1,4}$/.test(limit)) throw badRequest('limit: must be 1-1000');
  const { store } = context;
  if (typeof store.readRunEvents !== 'function') return { kept: false, events: [] };
  const events = await store.readRunEvents(
    id,
    after === null ? undefined : Number(after),
    Math.min(Math.max(Number(limit ?? 500), 1), 1000),
  );
  return { kept: true, events };
}

/** `GET sessions/:id`: the session's runs in order, with their costs and the total. */
async function describeSession(context: InspectorContext, sessionId: string) {
  const runs: RunSummary[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const query: RunQuery = { sessionId, sort: 'createdAt', order: 'asc', limit: 500 };
    if (cursor) query.cursor = cursor;
    const result = await queryRuns(context.store, query);
    runs.push(...result.runs);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  const priced = runs.filter((run) => run.costUsd !== undefined);
  return {
    sessionId,
    runs,
    totals: {
      runs: runs.length,
      tokens: runs.reduce((sum, run) => sum + run.tokens.total, 0),
      ...(priced.length > 0 && { costUsd: priced.reduce((sum, run) => sum + run.costUsd!, 0) }),
    },
  };
}
