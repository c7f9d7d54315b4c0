import type { Store } from '../agent/durable/store.js';
import { RunStateError } from '../agent/errors.js';
import { ConfigurationError } from '../core/errors.js';
import type { RunQueue } from '../queue/run-queue.js';
import { isStoppedRecord } from '../queue/run-stop.js';
import { endChatRun, settleWorkerChatRun } from './chat-run-observer.js';
import type { ChatRunner } from './chat-runner.js';
import { type ChatRunInfo, chatKeys, readJsonValue, requireChatStateStore } from './chat-state.js';
import { RunLease } from './execute-chat-run.js';

/** The agent name a chat's runs are enqueued under when none is given: what `svc-agents worker` serves. */
export const DEFAULT_CHAT_AGENT_NAME = 'chat';

/** Options of `queueChatRunner`. */
export interface QueueChatRunnerOptions {
  /** The queue the workers take runs from; it must use the chat handler's store. */
  queue: RunQueue;
  /** The chat handler's store (the queue's and the workers'). */
  store: Store;
  /** The name the workers know the chat's agent by (a key of their `agents`). @default 'chat' */
  agentName?: string;
  /**
   * BullMQ priority of chat runs (1 is the highest): a person waits for them, so they go before batch
   * work queued without one. @default 1
   */
  priority?: number;
  /** The handler's `leaseMs`: a queued turn's lease is renewed here until a worker vouches for it. @default 30_000 */
  leaseMs?: number;
  /** The handler's `keepEndedRunsMs`. @default 300_000 */
  keepEndedRunsMs?: number;
}

/**
 * A `ChatRunner` that runs a chat's turns on queue workers (`startWorker` with `observeRun:
 * chatRunObserver({ store })`, or `svc-agents worker`) instead of in the web process: each turn is
 * enqueued with its session, a paused run is continued through `queue.decide` (the decisions recorded in
 * the stored run, applied once) and stopped through `queue.stop`. The workers append the runs' events to
 * the store's event log, which any web server of the chat relays, so a web server restarted mid-answer
 * loses nothing.
 * @example
 * const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store });
 * const handler = createChatHandler({ store, runner: queueChatRunner({ queue, store }) });
 */
export function queueChatRunner(options: QueueChatRunnerOptions): ChatRunner {
  const {
    queue,
    agentName = DEFAULT_CHAT_AGENT_NAME,
    priority = 1,
    leaseMs = 30_000,
    keepEndedRunsMs = 300_000,
  } = options;
  if (!queue || typeof queue.enqueue !== 'function') {
    throw new ConfigurationError({
      field: 'queue',
      rule: 'required: the RunQueue the workers take runs from',
    });
  }
  if (typeof agentName !== 'string' || agentName === '') {
    throw new ConfigurationError({ field: 'agentName', rule: 'must be a non-empty string' });
  }
  const store = requireChatStateStore(options.store);
  // Turns enqueued from this process whose outcome is not known yet: their leases are renewed here while
  // they wait for a worker (a busy queue must not look like a crashed run to the chat servers).
  const waiting = new Map<string, RunLease>();
  const renewTimer = setInterval(
    () => {
      for (const [runId, lease] of waiting) {
        void (async () => {
          const { value } = await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId));
          // Ended, or failed for good by the queue (a run that crashed every worker): no more renewals.
          const record = value && !value.outcome ? await store.getRun(value.agentRunId) : undefined;
          if (!record || record.status === 'failed' || record.status === 'completed') waiting.delete(runId);
          else await lease.renew();
        })().catch(() => {});
      }
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  renewTimer.unref();
  // The lease is renewed from before the enqueue: a slow queue connection (its first command, a
  // reconnect) took longer than the lease, and the relays following the turn ended it as crashed.
  const watched = async (runId: string, enqueue: () => Promise<unknown>) => {
    const lease = new RunLease(store, runId, leaseMs);
    // Its own timer until the run is stored: the shared one drops a run it cannot find.
    const renewing = setInterval(
      () => void lease.renew().catch(() => {}),
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    try {
      await enqueue();
    } finally {
      clearInterval(renewing);
    }
    await lease.renew().catch(() => {});
    waiting.set(runId, lease);
  };

  return {
    async start({ runId, sessionId, messages, owner }) {
      // The owner travels with the job (and its continuations): the worker's agent factory is told it.
      const enqueue = { runId, session: sessionId, priority, ...(owner && { owner: owner.userId }) };
      await watched(runId, () => queue.enqueue(agentName, messages, enqueue));
    },
    async continue({ runId, pausedRunId, decisions }) {
      await watched(runId, () => queue.decide(pausedRunId, decisions, { eventLogId: runId }));
    },
    async stop(runId, reason) {
      waiting.delete(runId);
      let record: Awaited<ReturnType<RunQueue['stop']>>;
      try {
        record = await queue.stop(runId, reason);
      } catch (error) {
        // Not stored (yet, or any more): the stop request the handler wrote stops a job taking it later.
        if (!RunStateError.isInstance(error)) throw error;
        return;
      }
      // Ended before a worker took it: nobody else ends the chat's turn.
      if (!isStoppedRecord(record)) return;
      const info = (await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId))).value;
      if (!info || info.outcome) return;
      const run = { runId, agentRunId: info.agentRunId, sessionId: info.sessionId };
      await settleWorkerChatRun(store, run, 'stopped', record, '');
      await endChatRun(store, run, 'stopped', { keepEndedRunsMs });
    },
    // The queue is the caller's: it may serve other handlers.
    async close() {
      clearInterval(renewTimer);
      waiting.clear();
    },
  };
}
