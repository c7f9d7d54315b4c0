import type { RunRecord } from '../../agent/durable/store.js';
import { RunStateError, ToolApprovalError } from '../../agent/errors.js';
import type { CommandContext, CommandSpec, ParsedArgs } from '../command.js';
import { CliUsageError } from '../errors.js';
import { textTable } from '../ui/text-table.js';
import { backendOptions, cliConnectTimeoutMs, openRunBackend, type RunLocation } from './run-backend.js';

const STATUSES = ['running', 'interrupted', 'completed', 'failed'];

async function openQueue(ctx: CommandContext, location: RunLocation) {
  const { RunQueue } = await import('../../queue/run-queue.js');
  const queue = new RunQueue({
    connection: location.connection,
    store: location.store,
    name: location.queueName,
    connectTimeoutMs: cliConnectTimeoutMs,
  });
  ctx.defer(() => queue.close());
  return queue;
}

// The default namespace's queue, then the old default's when its store still holds runs.
async function openQueues(ctx: CommandContext, args: ParsedArgs, command: string) {
  const backend = await openRunBackend(ctx, args, command);
  const queues = [await openQueue(ctx, backend)];
  if (backend.legacy?.storeHasRuns) queues.push(await openQueue(ctx, backend.legacy.location));
  return queues;
}

async function requireRun(ctx: CommandContext, args: ParsedArgs, command: string) {
  const id = args.positionals[0]!;
  for (const queue of await openQueues(ctx, args, command)) {
    const record = await queue.get(id);
    if (record) return { queue, record };
  }
  // Not a mistake of the command line (exit code 1): the run is not in this store.
  throw new RunStateError(`No run "${id}" in this store; see: svc-agents runs ls`);
}

/** `svc-agents runs ls`: stored runs, newest first. */
export const runsLsCommand: CommandSpec = {
  path: ['runs', 'ls'],
  summary: 'list stored runs, newest first',
  usage: 'runs ls [--status running|interrupted|completed|failed] [--redis URL | --postgres URL]',
  positionals: { min: 0, max: 0 },
  options: {
    status: { type: 'string', valueName: '<status>', description: 'only runs with this status' },
    limit: { type: 'string', valueName: '<n>', description: 'at most this many (default 50)' },
    ...backendOptions,
  },
  async run(ctx, args) {
    const status = args.values.status as string | undefined;
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new CliUsageError(`--status: one of ${STATUSES.join(', ')}`, 'runs ls');
    }
    const queues = await openQueues(ctx, args, 'runs ls');
    const limit = Number(args.values.limit ?? 50);
    const options = { ...(status && { status: status as RunRecord['status'] }), limit };
    const lists = await Promise.all(queues.map((queue) => queue.list(options)));
    const runs = lists
      .flat()
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .slice(0, limit);
    if (ctx.json) ctx.printJson(runs.map(summary));
    else if (runs.length === 0) ctx.io.stdout.write('no runs\n');
    else {
      const rows = runs.map((run) => [
        run.id,
        run.status,
        run.agentName,
        new Date(run.updatedAt).toISOString(),
        run.interruptions.map((item) => `${item.toolName}:${item.toolCallId}`).join(' '),
      ]);
      ctx.io.stdout.write(`${textTable([['ID', 'STATUS', 'AGENT', 'UPDATED', 'WAITING'], ...rows])}\n`);
    }
    return 0;
  },
};

/** `svc-agents runs show <id>`: one run. */
export const runsShowCommand: CommandSpec = {
  path: ['runs', 'show'],
  summary: 'show a stored run: status, waiting calls, answer or error',
  usage: 'runs show <id> [--redis URL | --postgres URL]',
  positionals: { min: 1, max: 1 },
  options: backendOptions,
  async run(ctx, args) {
    const { record } = await requireRun(ctx, args, 'runs show');
    if (ctx.json) {
      ctx.printJson(record);
      return 0;
    }
    const lines = [
      `id:      ${record.id}`,
      `status:  ${record.status}`,
      `agent:   ${record.agentName}`,
      `created: ${new Date(record.createdAt).toISOString()}`,
      `updated: ${new Date(record.updatedAt).toISOString()} (version ${record.version})`,
      `steps:   ${(record.state.steps as unknown[] | undefined)?.length ?? 0}`,
      ...record.interruptions.map(
        (item) => `waiting: ${item.toolName} ${item.toolCallId} ${JSON.stringify(item.input)}`,
      ),
      ...(record.text ? [`answer:  ${record.text}`] : []),
      ...(record.error ? [`error:   ${record.error}`] : []),
    ];
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
};

/** `svc-agents runs stats`: what the workers' rate limits counted in the current window. */
export const runsStatsCommand: CommandSpec = {
  path: ['runs', 'stats'],
  summary: 'per model and tenant: requests, tokens, waits for budget, 429s and fallbacks in the window',
  usage: 'runs stats [--window-ms 60000] [--redis URL | --postgres URL]',
  positionals: { min: 0, max: 0 },
  options: {
    'window-ms': {
      type: 'string',
      valueName: '<ms>',
      description: "the workers' limits.windowMs (default 60000: a minute)",
    },
    ...backendOptions,
  },
  async run(ctx, args) {
    const windowMs = Number(args.values['window-ms'] ?? 60_000);
    if (!Number.isFinite(windowMs) || windowMs <= 0) {
      throw new CliUsageError('--window-ms: a positive number of milliseconds', 'runs stats');
    }
    const [queue] = await openQueues(ctx, args, 'runs stats');
    const stats = await queue!.stats({ windowMs });
    if (ctx.json) ctx.printJson(stats);
    else if (stats.rows.length === 0) ctx.io.stdout.write('no model requests in this window\n');
    else {
      const rows = stats.rows.map((row) => [
        row.model,
        row.tenant || '-',
        ...[row.requests, row.tokens, row.waits, row.rateLimited, row.fallbacks].map(String),
      ]);
      const header = ['MODEL', 'TENANT', 'REQUESTS', 'TOKENS', 'WAITS', '429S', 'FALLBACKS'];
      ctx.io.stdout.write(`window from ${new Date(stats.windowStart).toISOString()} (${windowMs} ms)\n`);
      ctx.io.stdout.write(`${textTable([header, ...rows])}\n`);
    }
    return 0;
  },
};

/** `svc-agents runs approve <id> <callId>`: lets a paused call run; the run is queued again. */
export const runsApproveCommand: CommandSpec = {
  path: ['runs', 'approve'],
  summary: 'approve a call a run waits on; the run is queued again',
  usage: 'runs approve <id> <callId> [--redis URL | --postgres URL]',
  positionals: { min: 2, max: 2 },
  options: backendOptions,
  run: (ctx, args) => decide(ctx, args, 'approve'),
};

/** `svc-agents runs reject <id> <callId>`: refuses a paused call; the model is told. */
export const runsRejectCommand: CommandSpec = {
  path: ['runs', 'reject'],
  summary: 'reject a call a run waits on (the model is told); the run is queued again',
  usage: 'runs reject <id> <callId> [--reason TEXT] [--redis URL | --postgres URL]',
  positionals: { min: 2, max: 2 },
  options: {
    reason: { type: 'string', valueName: '<text>', description: 'why, for the model' },
    ...backendOptions,
  },
  run: (ctx, args) => decide(ctx, args, 'reject'),
};

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `svc-agents runs prune`: removes finished runs past the store's retention (or `--older-than`). */
export const runsPruneCommand: CommandSpec = {
  path: ['runs', 'prune'],
  summary: 'remove completed and failed runs older than the retention (default 7 days)',
  usage: 'runs prune [--older-than 7d] [--redis URL | --postgres URL]',
  positionals: { min: 0, max: 0 },
  options: {
    'older-than': {
      type: 'string',
      valueName: '<duration>',
      description: 'last updated longer ago than this: 90s, 30m, 12h, 7d (default 7d)',
    },
    ...backendOptions,
  },
  async run(ctx, args) {
    const text = args.values['older-than'] as string | undefined;
    let olderThanMs: number | undefined;
    if (text !== undefined) {
      const match = /^(\d+)([smhd])$/.exec(text);
      if (!match || Number(match[1]) === 0) {
        throw new CliUsageError(
          '--older-than: a positive whole number and a unit s, m, h or d, e.g. 7d',
          'runs prune',
        );
      }
      olderThanMs = Number(match[1]) * DURATION_UNITS[match[2]!]!;
    }
    const backend = await openRunBackend(ctx, args, 'runs prune');
    const stores = [backend.store, ...(backend.legacy?.storeHasRuns ? [backend.legacy.location.store] : [])];
    let deleted = 0;
    for (const store of stores) {
      deleted += (await store.pruneRuns(olderThanMs === undefined ? {} : { olderThanMs })).deleted;
    }
    if (ctx.json) ctx.printJson({ deleted });
    else ctx.io.stdout.write(`pruned ${deleted} finished run${deleted === 1 ? '' : 's'}\n`);
    return 0;
  },
};

async function decide(ctx: CommandContext, args: ParsedArgs, action: 'approve' | 'reject'): Promise<number> {
  const command = `runs ${action}`;
  const { queue, record } = await requireRun(ctx, args, command);
  const callId = args.positionals[1]!;
  if (!record.interruptions.some((item) => item.toolCallId === callId)) {
    const waiting = record.interruptions.map((item) => item.toolCallId).join(', ') || 'none';
    throw new ToolApprovalError({
      toolCallId: callId,
      message: `Run "${record.id}" does not wait on call "${callId}"; waiting: ${waiting}`,
    });
  }
  if (action === 'approve') await queue.approve(record.id, callId);
  else await queue.reject(record.id, callId, args.values.reason as string | undefined);
  const updated = (await queue.get(record.id))!;
  if (ctx.json) ctx.printJson(summary(updated));
  else
    ctx.io.stdout.write(
      `${action === 'approve' ? 'approved' : 'rejected'} ${callId}; run ${record.id} is ${updated.status}\n`,
    );
  return 0;
}

function summary(record: RunRecord) {
  const { state: _state, ...rest } = record;
  return rest;
}
