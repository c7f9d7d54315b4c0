import type { Job, Queue } from 'bullmq';
import { type ApprovalDecision, checkApprovalDecisions } from '../agent/approval-decision.js';
import { decideRun } from '../agent/durable/record-decision.js';
import { createRunRecord } from '../agent/durable/run-with-store.js';
import type { ListRunsOptions, RunRecord, Store } from '../agent/durable/store.js';
import { RunConflictError, RunStateError } from '../agent/errors.js';
import type { AgentEvent } from '../agent/events.js';
import { RunState } from '../agent/run-state.js';
import type { ChatMessage } from '../api/types/chat.js';
import { defaults } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { isTransient } from '../stores/is-transient.js';
import { hasRunEventLog, RunEventLogWriter } from '../stores/run-event-log-writer.js';
import { eventsChannel, RUN_END_SIGNAL } from '../stores/run-events-signal.js';
import { createLimitsBackend } from './create-limits-backend.js';
import { fairPriority } from './fair-priority.js';
import type { LimitStatsRow, LimitsBackend } from './limits-backend.js';
import { type BullBackend, loadBullBackend, type RunJobData } from './load-bullmq.js';
import {
  checkReachable,
  type NormalizedConnection,
  normalizeConnection,
  type QueueConnection,
} from './queue-connection.js';
import { QueueUnavailableError, RunStoppedError, RunWaitTimeoutError } from './queue-errors.js';
import { encodeRunEvent, followQueuedRun } from './queued-run-events.js';
import { readRunJobMeta, saveRunJobMeta } from './run-job-meta.js';
import { canRecordStop, isStoppedRecord, markStopped, requestStop } from './run-stop.js';

/** The queue name used when none is given (`defaults.queueName`). */
export const DEFAULT_QUEUE_NAME = defaults.queueName;

/** Options of `new RunQueue(...)`. */
export interface RunQueueOptions {
  /** Redis URL / ioredis options, or `{ postgres: url }`. */
  connection: QueueConnection;
  /** Where the runs are kept: the workers must use the same store. */
  store: Store;
  /** Queue name (tests and tenants use separate queues); the workers must use the same. @default 'svc-agents-runs' */
  name?: string;
  /** Tries of a run whose worker failed with a retryable error (a 429 delays it without counting). @default 3 */
  attempts?: number;
  /**
   * How long `enqueue`, `approve` and `reject` wait for the queue's backend to accept the job before
   * failing with a `QueueUnavailableError` (the run's record stays stored: enqueue it again). @default 10_000
   */
  enqueueTimeoutMs?: number;
  /**
   * How long the queue's first connection to its backend may take: past it the operation fails with a
   * `QueueUnavailableError` whose cause, a `BackendUnreachableError`, names the address. @default 10_000
   */
  connectTimeoutMs?: number;
}

/** Options of `queue.requeueStranded`. */
export interface RequeueStrandedOptions {
  /** Only runs whose record was last written at least this long ago. @default 300_000 */
  olderThanMs?: number;
  /** At most this many stored running runs are looked at. @default 1_000 */
  limit?: number;
  /** Only runs of these agents (a worker passes its own, so it never queues runs it cannot run). */
  agentNames?: readonly string[];
}

// The job states in which a job waits for a worker (removable: no worker holds it).
const WAITING_JOB_STATES = new Set(['wait', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

// The job states in which a job will still run (or runs now) its run.
const LIVE_JOB_STATES = ['active', 'wait', 'delayed', 'prioritized', 'waiting-children'] as const;

// `job.getState()` says `waiting` for the list `getJobs` calls `wait`.
const isLiveState = (state: string) =>
  state === 'waiting' || (LIVE_JOB_STATES as readonly string[]).includes(state);

/** Options of `queue.enqueue`. */
export interface EnqueueOptions {
  /** The run's id. @default a random UUID */
  runId?: string;
  /** A session: its history (as of now) is prepended and the run's items appended when it ends. */
  session?: string;
  /**
   * BullMQ priority: 1 is the highest (interactive runs before batch work); runs without one go first.
   * With a `tenant`, at most `MAX_TENANT_PRIORITY` (1024 ranks per level share BullMQ's range).
   */
  priority?: number;
  /**
   * Who the run is for: tenants' runs are scheduled round-robin within a priority level (see `fairPriority`),
   * so one tenant's burst does not starve another's run; stats are kept per tenant.
   */
  tenant?: string;
  /** Milliseconds to wait before a worker may start the run. */
  delay?: number;
  /**
   * The key of the run's event log in the store (and of its stop requests), when not `runId`: a web chat
   * gives each continuation of a paused run its own log. @default runId
   */
  eventLogId?: string;
  /**
   * Who the run acts for (an app's user id): kept with the run across approvals and requeues, and told to
   * the worker's agent factory (`startWorker`'s `agents`), so tools can reach only this user's data.
   */
  owner?: string;
}

/** One decision of `queue.decide`: the library's one `ApprovalDecision`. */
export type QueueDecision = ApprovalDecision;

/** Options of `queue.decide`. */
export interface DecideOptions {
  /** The event log the continued run writes to (see `EnqueueOptions.eventLogId`). @default the run id */
  eventLogId?: string;
}

/** `queue.stats()`: the counters of the current window. */
export interface QueueStats {
  /** When the window began (ms since the epoch). */
  windowStart: number;
  windowMs: number;
  /** One row per model and tenant (`''` for runs without a tenant). */
  rows: LimitStatsRow[];
}

/** Options of `queue.waitUntilFinished`. */
export interface WaitUntilFinishedOptions {
  /** Give up after this many milliseconds (a `RunWaitTimeoutError`). @default 60_000 */
  timeout?: number;
}

/**
 * Runs spread over worker processes (`startWorker`), on BullMQ with Redis or PostgreSQL. A run is first
 * stored (so `get` sees it at once), then queued; any worker resumes it from its last checkpoint.
 * @example
 * const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store });
 * const runId = await queue.enqueue('support', 'Refund order 42');
 * const record = await queue.waitUntilFinished(runId);
 */
export class RunQueue {
  readonly name: string;
  readonly #store: Store;
  readonly #connection: NormalizedConnection;
  readonly #attempts: number;
  readonly #enqueueTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  #connected = false;
  #backend: Promise<{ backend: BullBackend; queue: Queue<RunJobData> }> | undefined;
  #limits: LimitsBackend | undefined;

  constructor(options: RunQueueOptions) {
    this.#connection = normalizeConnection(options.connection);
    if (!options.store)
      throw new ConfigurationError({ field: 'store', rule: 'required: the store the workers use' });
    this.#store = options.store;
    this.name = options.name ?? DEFAULT_QUEUE_NAME;
    this.#attempts = options.attempts ?? 3;
    this.#enqueueTimeoutMs = options.enqueueTimeoutMs ?? 10_000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? defaults.connectTimeoutMs;
  }

  /**
   * Stores a new run of `agentName` and queues it; answers its run id. Enqueueing again a `runId` already
   * stored with the same agent and input is not an error: its job is added if it has none (after an
   * enqueue that failed with `QueueUnavailableError`, or a crash between the two steps).
   */
  async enqueue(
    agentName: string,
    input: string | readonly ChatMessage[],
    options: EnqueueOptions = {},
  ): Promise<string> {
    const { tenant } = options;
    if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
      throw new ConfigurationError({ field: 'tenant', rule: 'must be a non-empty string' });
    }
    if (options.owner !== undefined && (typeof options.owner !== 'string' || options.owner === '')) {
      throw new ConfigurationError({ field: 'owner', rule: 'must be a non-empty string' });
    }
    // Checked before the run is stored and the backlog counts it: a refused priority leaves no trace.
    if (tenant !== undefined) fairPriority(options.priority, 1);
    const runId = options.runId ?? crypto.randomUUID();
    const messages: ChatMessage[] =
      typeof input === 'string'
        ? [{ role: 'user', content: input }]
        : input.map((message) => ({ ...message }));
    let record: RunRecord;
    try {
      record = await createRunRecord({
        store: this.#store,
        agentName,
        runId,
        // A copy: the session's history is put in front of the state's messages, not of the caller's input.
        state: new RunState({ messages: [...messages] }),
        session: options.session,
        fresh: true,
        // On the record too: the run inspector lists runs by tenant.
        ...(tenant !== undefined && { tenant }),
      });
    } catch (error) {
      if (!RunConflictError.isInstance(error)) throw error;
      const stored = await this.#store.getRun(runId);
      if (!stored || !isSameRequest(stored, agentName, messages, options.session)) throw error;
      if (stored.status === 'running') await this.#requeueIfStranded(stored, 'enqueue');
      return runId;
    }
    // Kept for the jobs that queue the run again (after an approval, by the stranded-run check).
    await saveRunJobMeta(this.#store, runId, {
      tenant,
      eventLogId: options.eventLogId,
      owner: options.owner,
    });
    const priority =
      tenant === undefined
        ? options.priority
        : fairPriority(options.priority, await this.#limitsBackend().enterBacklog(tenant));
    await this.#add(
      record,
      {
        priority,
        delay: options.delay,
        tenant,
        eventLogId: options.eventLogId,
        owner: options.owner,
        fresh: true,
      },
      'enqueue',
    );
    return runId;
  }

  /** The stored run record, or `undefined`. */
  get(runId: string): Promise<RunRecord | undefined> {
    return this.#store.getRun(runId);
  }

  /** Stored runs, newest first. */
  list(options?: ListRunsOptions): Promise<RunRecord[]> {
    return this.#store.listRuns(options);
  }

  /** Resolves with the record once the run is completed, failed (for good) or interrupted for approval. */
  async waitUntilFinished(
    runId: string,
    { timeout = 60_000 }: WaitUntilFinishedOptions = {},
  ): Promise<RunRecord> {
    const deadline = Date.now() + timeout;
    // Woken by the worker's end signal, so the wait ends as the outcome is recorded; the backoff reads
    // are for a lost signal (or a store without signals).
    let wake: (() => void) | undefined;
    let ended = false;
    const unsubscribe = await this.#store
      .onSignal?.(eventsChannel(runId), (message) => {
        if (message !== RUN_END_SIGNAL) return;
        ended = true;
        wake?.();
      })
      .catch(() => undefined);
    try {
      for (let wait = 20; ; wait = Math.min(wait * 1.5, 250)) {
        ended = false;
        const record = await this.#store.getRun(runId);
        if (!record) throw new RunStateError(`No stored run "${runId}"`);
        if (record.status !== 'running') return record;
        if (Date.now() + wait > deadline) {
          throw new RunWaitTimeoutError({ runId, timeoutMs: timeout, status: record.status });
        }
        if (ended) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, unsubscribe ? Math.max(wait, 250) : wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      await unsubscribe?.().catch(() => undefined);
    }
  }

  /** Lets a paused call run; once no call of the run waits any more, the run is queued again. */
  approve(runId: string, toolCallId: string): Promise<void> {
    return this.#decide(runId, toolCallId, { approved: true });
  }

  /** Refuses a paused call (the model is told, with `reason`); once no call waits, the run is queued again. */
  reject(runId: string, toolCallId: string, reason?: string): Promise<void> {
    return this.#decide(runId, toolCallId, { approved: false, reason });
  }

  /**
   * Records several decisions on a paused run (in order, each once: a repeated call changes nothing),
   * then queues the run once no call waits any more. With `eventLogId`, the continued run's events go to
   * that log (a web chat's continuation), not the run's own.
   */
  async decide(
    runId: string,
    decisions: readonly QueueDecision[],
    options: DecideOptions = {},
  ): Promise<void> {
    let outcome: { record: RunRecord; recorded: boolean } | undefined;
    let anyRecorded = false;
    for (const decision of checkApprovalDecisions(decisions)) {
      const { toolCallId, approved, reason } = decision;
      // An output (of a client-side tool's call) goes with its decision: it is what the model reads.
      const output = Object.hasOwn(decision, 'output') ? { output: decision.output } : {};
      outcome = await decideRun(
        this.#store,
        runId,
        toolCallId,
        approved ? { approved: true, ...output } : { approved: false, reason },
      );
      anyRecorded ||= outcome.recorded;
    }
    const { record } = outcome!;
    if (record.status !== 'running') return;
    // The continuation's log is the run's from now on, also for a job the stranded-run check adds.
    await saveRunJobMeta(this.#store, runId, { eventLogId: options.eventLogId });
    const add = { eventLogId: options.eventLogId };
    if (anyRecorded) await this.#add(record, add, 'queue the approved');
    else await this.#requeueIfStranded(record, 'queue the approved', add);
  }

  /**
   * Stops a run wherever it is: a queued run is taken off the queue, a paused (or stranded) one is ended
   * here, and a running one is aborted by the worker running it (told by the store's `stop:<runId>`
   * signal; the request is also kept in the store, so a worker that missed the signal, or takes the run
   * over after a crash, still stops it). No tool starts after the stop. The record ends `failed` (the
   * status of an aborted run) with the error `RunStoppedError: The run was stopped...` (`isStoppedRecord`),
   * and followers get an `abort` event. A run already completed or failed is left as it is. Resolves once
   * the request is recorded: `waitUntilFinished` waits for a running run's end. Stopping a running run
   * needs a store with shared values (`getValue`/`setValueIf`), as the bundled ones have.
   */
  async stop(runId: string, reason?: string): Promise<RunRecord> {
    if (typeof runId !== 'string' || runId === '')
      throw new ConfigurationError({ field: 'runId', rule: 'must be a non-empty string' });
    if (reason !== undefined && typeof reason !== 'string')
      throw new ConfigurationError({ field: 'reason', rule: 'must be a string' });
    const direct = await this.#store.getRun(runId);
    if (direct && (direct.status === 'completed' || direct.status === 'failed')) return direct;
    const jobs = await this.#bounded(runId, 'stop', () =>
      direct ? this.#jobsOf(direct) : this.#scanJobs((job) => job?.data?.eventLogId === runId),
    );
    const storedId = direct?.id ?? jobs[0]?.data.runId ?? runId;
    const record = direct ?? (await this.#store.getRun(storedId));
    if (!record) throw new RunStateError(`No stored run "${runId}"`);
    if (record.status === 'completed' || record.status === 'failed') return record;
    const logIds = new Set(jobs.map((job) => job.data.eventLogId ?? storedId));
    const kept = (await readRunJobMeta(this.#store, storedId)).eventLogId;
    if (kept !== undefined && direct) logIds.add(kept);
    if (logIds.size === 0) logIds.add(runId);
    // Recorded first: a worker taking a job between the look-up and its removal sees the request, and
    // so does a job queued again later (a repeated decision, the stranded-run check).
    const recordable = canRecordStop(this.#store);
    if (recordable) {
      for (const id of new Set([storedId, ...logIds])) await requestStop(this.#store, id, reason);
    }
    const held = await this.#bounded(runId, 'stop', async () => {
      let active = false;
      for (const job of jobs) {
        const state = await job.getState();
        // Removing a job a worker has just locked fails: that worker sees the request.
        const removed =
          WAITING_JOB_STATES.has(state) &&
          (await job.remove().then(
            () => true,
            () => false,
          ));
        if (!removed && state !== 'completed' && state !== 'failed' && state !== 'unknown') active = true;
      }
      return active;
    });
    // Held by a worker: the worker ends it.
    if (record.status === 'running' && held) {
      if (!recordable) {
        throw new ConfigurationError({
          field: 'store',
          rule: 'stopping a running run needs a store with shared values (getValue and setValueIf)',
        });
      }
      return (await this.#store.getRun(storedId)) ?? record;
    }
    const ended = (await markStopped(this.#store, storedId, reason)) ?? record;
    if (!isStoppedRecord(ended)) return ended;
    const event = { type: 'abort' as const, reason: new RunStoppedError(reason) };
    if (hasRunEventLog(this.#store)) {
      for (const id of logIds) {
        const log = new RunEventLogWriter(this.#store, id);
        log.push(encodeRunEvent(event));
        await log.close();
      }
    }
    return ended;
  }

  /**
   * The events of a run, read from the store's run event log (every worker appends there) and woken by
   * its signals: the part of the run under way when called (a late follower replays it; a run resumed
   * after a pause starts after its pause), then each event as it is stored, until the run finishes,
   * pauses, fails or is stopped; it ends at once when the run already has. Events are the JSON form of
   * `AgentEvent` (`toAgentEventJson`: errors as `{ name, message }`). A run taken over after a crash goes
   * on in the same iteration, `start` again included. Needs a store with a run event log, as the bundled
   * ones have (a `ConfigurationError` naming `store` otherwise).
   */
  events(runId: string): AsyncIterable<AgentEvent> {
    return followQueuedRun(this.#store, runId);
  }

  /**
   * Queues again the stored `running` runs that no job will run (a producer crashed between storing a
   * run and queueing it, or the queue failed it while the store was unreachable); answers their ids.
   * Workers call it periodically (`strandedRunCheckMs`); a run last written less than `olderThanMs` ago
   * is left alone, so a run just being stored or driven by a slow tool is not queued twice.
   */
  async requeueStranded({
    olderThanMs = 300_000,
    limit = 1_000,
    agentNames,
  }: RequeueStrandedOptions = {}): Promise<string[]> {
    const cutoff = Date.now() - olderThanMs;
    const candidates = (await this.#store.listRuns({ status: 'running', limit })).filter(
      (record) =>
        record.updatedAt <= cutoff && (agentNames === undefined || agentNames.includes(record.agentName)),
    );
    if (candidates.length === 0) return [];
    // Each run's job by its id, or among the active ones; the whole queue is read once, and only for
    // the runs found neither way.
    const unsure: RunRecord[] = [];
    for (const record of candidates) {
      const jobs = await this.#bounded(record.id, 'requeue', () => this.#jobsOf(record, false));
      if (jobs.length === 0) unsure.push(record);
    }
    if (unsure.length === 0) return [];
    const live = new Set(
      (await this.#bounded(unsure[0]!.id, 'requeue', () => this.#scanJobs(() => true))).map(
        (job) => job.data?.runId,
      ),
    );
    const stranded = unsure.filter((record) => !live.has(record.id));
    for (const record of stranded) await this.#readd(record, 'requeue');
    return stranded.map((record) => record.id);
  }

  // The live jobs of a stored run, looked up without reading the whole queue when it can be: a queued
  // job by its id (the version it was queued at, which is the record's until a worker writes it), a
  // running one among the active jobs (as many as the workers run). Only a run with neither (a job
  // delayed for a retry or handed back by a closing worker is named after an older version; or none)
  // is looked for among every live job.
  async #jobsOf(record: RunRecord, scan = true): Promise<Job<RunJobData>[]> {
    const { queue } = await this.#open();
    const ofRun = (job: Job<RunJobData> | undefined) =>
      job?.data?.runId === record.id || job?.data?.eventLogId === record.id;
    const [queued, active] = await Promise.all([queue.getJob(jobIdOf(record)), queue.getJobs(['active'])]);
    const found = active.filter(ofRun);
    if (queued && ofRun(queued) && isLiveState(await queued.getState())) found.push(queued);
    if (found.length > 0 || record.status !== 'running' || !scan) return found;
    return this.#scanJobs(ofRun);
  }

  async #scanJobs(match: (job: Job<RunJobData> | undefined) => boolean): Promise<Job<RunJobData>[]> {
    const { queue } = await this.#open();
    return (await queue.getJobs([...LIVE_JOB_STATES])).filter(match);
  }

  /**
   * What the workers' limits counted in the current window, per model and tenant: requests and tokens used,
   * requests that waited for budget, rate-limited answers and fallbacks. `windowMs` is the workers' `limits.windowMs`.
   */
  async stats({ windowMs = 60_000 }: { windowMs?: number } = {}): Promise<QueueStats> {
    const window = Math.floor(Date.now() / windowMs);
    const rows = await this.#limitsBackend(windowMs).stats(window);
    return { windowStart: window * windowMs, windowMs, rows };
  }

  /** Closes the queue's connections (not the store's). */
  async close(): Promise<void> {
    const backend = this.#backend;
    this.#backend = undefined;
    await Promise.all([backend && (await backend).queue.close(), this.#limits?.close()]);
    this.#limits = undefined;
  }

  #limitsBackend(windowMs = 60_000): LimitsBackend {
    this.#limits ??= createLimitsBackend(this.#connection, this.name, windowMs);
    return this.#limits;
  }

  async #decide(
    runId: string,
    toolCallId: string,
    decision: { approved: true } | { approved: false; reason?: string | undefined },
  ): Promise<void> {
    const { record, recorded } = await decideRun(this.#store, runId, toolCallId, decision);
    if (record.status !== 'running') return;
    // A repeated decision: the first one may have stored the run and failed to queue it.
    if (recorded) await this.#add(record, {}, 'queue the approved');
    else await this.#requeueIfStranded(record, 'queue the approved');
  }

  // Queues the run unless a job already holds it.
  async #requeueIfStranded(record: RunRecord, operation: string, options: AddOptions = {}): Promise<void> {
    const jobs = await this.#bounded(record.id, operation, () => this.#jobsOf(record));
    if (!jobs.some((job) => job.data.runId === record.id)) await this.#readd(record, operation, options);
  }

  // Adds the run's job again, first removing a finished job left under the same id (BullMQ would
  // otherwise ignore the add).
  async #readd(record: RunRecord, operation: string, options: AddOptions = {}): Promise<void> {
    await this.#bounded(record.id, operation, async () => {
      const { queue } = await this.#open();
      const old = await queue.getJob(jobIdOf(record));
      if (old && ((await old.isFailed()) || (await old.isCompleted()))) await old.remove();
    });
    await this.#add(record, options, operation);
  }

  async #add(record: RunRecord, options: AddOptions, operation: string) {
    // A run queued again keeps the tenant and event log its first job had; one a worker has claimed
    // (its version moved past 1) already left its tenant's backlog.
    const kept = options.fresh ? {} : await readRunJobMeta(this.#store, record.id);
    const tenant = options.tenant ?? kept.tenant;
    const eventLogId = options.eventLogId ?? kept.eventLogId;
    const owner = options.owner ?? kept.owner;
    await this.#bounded(record.id, operation, async () => {
      const { queue } = await this.#open();
      await queue.add(
        'run',
        {
          runId: record.id,
          agentName: record.agentName,
          ...(tenant !== undefined && { tenant }),
          ...(eventLogId !== undefined && { eventLogId }),
          ...(owner !== undefined && { owner }),
          ...(!options.fresh && tenant !== undefined && record.version > 1 && { started: true }),
        },
        {
          // One job per (run, version): re-queueing the same state twice is one job.
          jobId: jobIdOf(record),
          attempts: this.#attempts,
          backoff: { type: 'exponential', delay: 1_000 },
          removeOnComplete: true,
          removeOnFail: { count: 1_000 },
          ...(options.priority !== undefined && { priority: options.priority }),
          ...(options.delay !== undefined && { delay: options.delay }),
        },
      );
    });
  }

  // Runs one queue operation, failing with a `QueueUnavailableError` when the backend does not answer
  // in time or its connection fails.
  async #bounded<T>(runId: string, operation: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = this.#enqueueTimeoutMs;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableError({ runId, operation, timeoutMs })), timeoutMs);
    });
    const working = work();
    // The operation may still settle after the timeout: its outcome no longer has a caller.
    working.catch(() => undefined);
    try {
      return await Promise.race([working, timedOut]);
    } catch (error) {
      if (!QueueUnavailableError.isInstance(error) && !isTransient(error)) throw error;
      // A backend whose connection failed may stay failed (BullMQ's PostgreSQL backend keeps its first
      // connection error): the next operation starts with a new one.
      this.#discardBackend();
      if (QueueUnavailableError.isInstance(error)) throw error;
      throw new QueueUnavailableError({ runId, operation, cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  #discardBackend() {
    const stale = this.#backend;
    this.#backend = undefined;
    stale?.then(({ queue }) => queue.close()).catch(() => undefined);
  }

  #open() {
    this.#backend ??= loadBullBackend(this.#connection).then(async (backend) => {
      // Bounded once: before its first success BullMQ would retry a dead address silently.
      if (!this.#connected) await checkReachable(this.#connection, this.#connectTimeoutMs);
      this.#connected = true;
      const queue = new backend.Queue(this.name, backend.producerOptions);
      // Connection errors reach the callers of the failed operations; unlistened they would crash.
      queue.on('error', () => undefined);
      return { backend, queue };
    });
    return this.#backend;
  }
}

interface AddOptions {
  /** The first job of a run just stored (nothing kept to read back). */
  fresh?: boolean;
  priority?: number | undefined;
  delay?: number | undefined;
  tenant?: string | undefined;
  eventLogId?: string | undefined;
  owner?: string | undefined;
}

// The id of a run's job at one version of its record (BullMQ ignores adding an id it holds).
function jobIdOf(record: Pick<RunRecord, 'id' | 'version'>): string {
  return `run-${Buffer.from(record.id).toString('base64url')}-${record.version}`;
}

// Whether a stored run is the one an enqueue call asks for: same agent, same session, same input messages.
function isSameRequest(
  record: RunRecord,
  agentName: string,
  messages: readonly ChatMessage[],
  session: string | undefined,
): boolean {
  if (record.agentName !== agentName || record.session?.id !== session) return false;
  // A session run's record keeps its own input apart, and its state leaves the session's history out
  // (`historyOmitted`): `start` then counts messages the stored state does not hold.
  const link = record.session;
  const stored = (record.state as { messages?: ChatMessage[] }).messages ?? [];
  const start = link?.historyOmitted ? 0 : (link?.start ?? 0);
  const input = link?.input ?? stored.slice(start, start + messages.length);
  return JSON.stringify(input) === JSON.stringify(messages);
}
