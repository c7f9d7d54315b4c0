import type { RunRecord, Store } from '../agent/durable/store.js';
import type { WorkerRunObserver, WorkerRunStatus } from '../queue/start-worker.js';
import {
  type ChatRunInfo,
  type ChatStateStore,
  chatKeys,
  type PausedChatRun,
  readJsonValue,
  requireChatStateStore,
  trySignal,
} from './chat-state.js';
import { keepShown, RunLease } from './execute-chat-run.js';

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
    let shown = '';
    return {
      onEvent(event) {
        if (event.type === 'text-delta') shown += event.text;
      },
      async onEnd({ status, record }) {
        clearInterval(timer);
        await endChatRun(store, { runId, agentRunId, sessionId: info.sessionId }, status, record, shown, {
          keepEndedRunsMs,
        });
      },
      async onRelease() {
        clearInterval(timer);
      },
    };
  };
}

/**
 * Ends a chat run executed outside the chat handler's process, as `executeChatRun` ends its own: called by
 * the worker's observer, and by `queueChatRunner` for a run stopped before a worker took it.
 */
export async function endChatRun(
  store: ChatStateStore,
  run: { runId: string; agentRunId: string; sessionId: string },
  status: WorkerRunStatus,
  record: RunRecord | undefined,
  shown: string,
  { keepEndedRunsMs }: { keepEndedRunsMs: number },
): Promise<void> {
  const { runId, agentRunId, sessionId } = run;
  if (status === 'stopped') {
    // A new turn's input is its own (a continuation's was kept when it paused).
    const messages = runId === agentRunId ? [...(record?.session?.input ?? [])] : [];
    await keepShown(store, { kind: 'start', runId, sessionId, messages }, shown);
  }
  if (status === 'interrupted' && record) {
    const paused: PausedChatRun = {
      runId,
      agentRunId,
      pending: record.interruptions.map((item) => ({
        toolCallId: item.toolCallId,
        toolName: item.toolName,
        arguments: item.input,
      })),
    };
    const current = await store.getValue(chatKeys.paused(sessionId));
    await store.setValueIf(chatKeys.paused(sessionId), current.version, JSON.stringify(paused));
  }
  await new RunLease(store, runId, 0).end(status, status === 'interrupted' ? undefined : keepEndedRunsMs);
  const active = await store.getValue(chatKeys.active(sessionId));
  if (active.value === runId) await store.setValueIf(chatKeys.active(sessionId), active.version, undefined);
  await trySignal(store, chatKeys.eventsChannel(runId), 'end');
}
