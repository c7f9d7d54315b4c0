import { toAgentEventJson } from '../agent/agent-event-json.js';
import type { RunRecord, Store } from '../agent/durable/store.js';
import type { RunResult } from '../agent/run-result.js';
import type { WorkerRunObserver, WorkerRunStatus } from '../queue/start-worker.js';
import { announceRunEnd } from '../stores/run-events-signal.js';
import { type ChatCallNotes, createCallNotesCollector } from './chat-call-notes.js';
import {
  type ChatRunInfo,
  type ChatStateStore,
  chatKeys,
  readJsonValue,
  requireChatStateStore,
} from './chat-state.js';
import { RunLease, settleChatRun } from './execute-chat-run.js';

/** Options of `chatRunObserver`. */
export interface ChatRunObserverOptions {
  /** The store the chat handlers and the workers share. */
  store: Store;
  /** How long a worker vouches for a chat run before renewing its lease (as the handler's). @default 30_000 */
  leaseMs?: number;
  /** How long an ended run's values stay for reconnects (as the handler's). @default 300_000 */
  keepEndedRunsMs?: number;
}

/**
 * The `observeRun` of a queue worker that executes a web chat's runs (`queueChatRunner`): while it runs a
 * chat's turn it renews the turn's lease (so the chat servers know it is alive), and when the turn ends it
 * does what the in-process runner does: records the outcome, keeps a paused run for the approval buttons,
 * keeps what a stopped turn showed in the session, frees the session for its next message, and signals
 * the followers. Runs that are not a chat's are left alone.
 * @example
 * await startWorker({ connection, store, agents: { chat: agent }, observeRun: chatRunObserver({ store }) });
 */
export function chatRunObserver(
  options: ChatRunObserverOptions,
): (run: { runId: string; eventLogId: string }) => Promise<WorkerRunObserver | undefined> {
  const store = requireChatStateStore(options.store);
  const { leaseMs = 30_000, keepEndedRunsMs = 300_000 } = options;
  return async ({ runId: agentRunId, eventLogId: runId }) => {
    const info = (await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId))).value;
    if (!info) return undefined;
    const lease = new RunLease(store, runId, leaseMs);
    await lease.renew();
    const timer = setInterval(
      () => void lease.renew().catch(() => {}),
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    timer.unref();
    const run = { runId, agentRunId, sessionId: info.sessionId };
    let shown = '';
    let ended: WorkerRunStatus | undefined;
    const notes = createCallNotesCollector();
    return {
      onEvent(event) {
        if (event.type === 'text-delta') shown += event.text;
        else if (event.type === 'tool-error' || event.type === 'source') notes.add(toAgentEventJson(event));
      },
      // Before the run's last event is appended: a client acting on it finds the session settled.
      async onEnd({ status, record }) {
        clearInterval(timer);
        ended = status;
        await settleWorkerChatRun(store, run, status, record, shown, notes.get());
      },
      // After it: the outcome tells the relays that nothing more comes.
      async onRelease() {
        clearInterval(timer);
        if (ended) await endChatRun(store, run, ended, { keepEndedRunsMs });
      },
    };
  };
}

/**
 * What a chat turn run outside the chat handler's process leaves in the store, as `settleChatRun` writes it
 * for the in-process runner: a stopped turn's shown text kept in the session, a paused run kept for the
 * approval buttons, the session's active run released.
 */
export async function settleWorkerChatRun(
  store: ChatStateStore,
  run: { runId: string; agentRunId: string; sessionId: string },
  status: WorkerRunStatus,
  record: RunRecord | undefined,
  shown: string,
  notes?: ChatCallNotes,
): Promise<void> {
  const { runId, agentRunId, sessionId } = run;
  // A new turn's input is its own (a continuation's was kept when it paused).
  const messages = runId === agentRunId ? [...(record?.session?.input ?? [])] : [];
  // What settleChatRun reads of a paused run's result: its stored run and the calls it waits for.
  const paused =
    status === 'interrupted' && record
      ? ({ runId: agentRunId, interruptions: record.interruptions } as unknown as RunResult<unknown>)
      : undefined;
  await settleChatRun({
    store,
    run: { kind: 'start', runId, sessionId, messages },
    outcome: status,
    result: paused,
    shown,
    notes,
  });
}

/** Records a settled chat turn's outcome (its lease ends) and wakes the relays following it. */
export async function endChatRun(
  store: ChatStateStore,
  run: { runId: string },
  status: WorkerRunStatus,
  { keepEndedRunsMs }: { keepEndedRunsMs: number },
): Promise<void> {
  await new RunLease(store, run.runId, 0).end(status, status === 'interrupted' ? undefined : keepEndedRunsMs);
  await announceRunEnd(store, run.runId);
}
