import type { RunEventLogStore, SharedValueStore, SignalStore, Store } from '../agent/durable/store.js';
import { ConfigurationError } from '../core/errors.js';

/** A store with what a chat on several servers shares: the run event log and compare-and-set values. */
export type ChatStateStore = Store & RunEventLogStore & SharedValueStore & Partial<SignalStore>;

/** A tool call a paused run waits for, as `GET /sessions/:id` tells it. */
export interface PendingApproval {
  /** The id the decision names. */
  toolCallId: string;
  /** The tool the model asked for. */
  toolName: string;
  /** The call's arguments. */
  arguments: unknown;
  /** True for a client-side tool's call: it waits for its output (`addToolOutput`), not for a decision. */
  clientSide?: true;
}

/** How a chat run ended: as the agent ended it, or `stopped` by a stop request. */
export type ChatRunOutcome = 'completed' | 'interrupted' | 'failed' | 'stopped';

/** What the store knows of one chat run (the value `chat:run:<runId>`). */
export interface ChatRunInfo {
  /** The session the run belongs to. */
  sessionId: string;
  /** The agent's stored run it executes (differs from the run id for a continued paused run). */
  agentRunId: string;
  /** Unset while it runs. */
  outcome?: ChatRunOutcome;
  /** Epoch ms until which the executing process vouches for a running run (renewed while it runs). */
  leaseUntil?: number;
}

/** The paused run of a session (the value `chat:paused:<sessionId>`). */
export interface PausedChatRun {
  /** The chat run (event log) that paused. */
  runId: string;
  /** The agent's stored run, continued with the decisions. */
  agentRunId: string;
  /** The calls waiting for a decision. */
  pending: PendingApproval[];
}

/** The keys, channels and small reads and writes of a chat's shared state, in one place. */
export const chatKeys = {
  run: (runId: string) => `chat:run:${runId}`,
  active: (sessionId: string) => `chat:active:${sessionId}`,
  paused: (sessionId: string) => `chat:paused:${sessionId}`,
  stop: (runId: string) => `chat:stop:${runId}`,
  /** The knowledge base of a session's uploads (the `serve` page). */
  knowledgeBase: (sessionId: string) => `chat:kb:${sessionId}`,
  eventsChannel: (runId: string) => `events:${runId}`,
  stopChannel: (runId: string) => `stop:${runId}`,
};

/** Checks that `store` holds what a shared chat needs, naming what is missing. */
export function requireChatStateStore(store: Store): ChatStateStore {
  const missing = (['appendRunEvents', 'readRunEvents', 'getValue', 'setValueIf'] as const).filter(
    (method) => typeof store[method] !== 'function',
  );
  if (missing.length > 0) {
    throw new ConfigurationError({
      field: 'store',
      rule: `a chat handler needs a store with a run event log and shared values; this one lacks ${missing.join(', ')}`,
    });
  }
  return store as ChatStateStore;
}

/** A JSON value read from the store, or `undefined` (absent or unreadable). */
export async function readJsonValue<T>(
  store: ChatStateStore,
  key: string,
): Promise<{ value: T | undefined; version: number }> {
  const { value, version } = await store.getValue(key);
  if (value === undefined) return { value: undefined, version };
  try {
    return { value: JSON.parse(value) as T, version };
  } catch {
    return { value: undefined, version };
  }
}

/** True when the run is over or its executing process stopped vouching for it (a crash). */
export function runIsOver(info: ChatRunInfo | undefined, now = Date.now()): boolean {
  if (!info) return true;
  if (info.outcome) return true;
  return info.leaseUntil !== undefined && info.leaseUntil < now;
}

/** Sends a best-effort signal; a store without signals (or a failed send) leaves listeners to their timers. */
export async function trySignal(store: ChatStateStore, channel: string, message: string): Promise<void> {
  try {
    await store.signal?.(channel, message);
  } catch {
    // Signals are best effort by contract: every listener also re-reads on a timer.
  }
}
