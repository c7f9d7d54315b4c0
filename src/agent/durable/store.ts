import type { ChatMessage } from '../../api/types/chat.js';
import type { ToolApprovalItem } from '../run-result.js';

/** Where a stored run stands. */
export type RunStatus = 'running' | 'interrupted' | 'completed' | 'failed';

/** Which part of a run's messages was already appended to its session. */
export interface RunSessionLink {
  /** The session id the run belongs to. */
  id: string;
  /** Index into `state.messages` where the run's own items start (the history before is the session's). */
  start: number;
  /** Index into `state.messages` up to which items were appended to the session (records without `input`). */
  appended: number;
  /**
   * The run's own input messages (after the session's history). The run's items are these plus each of
   * its steps' assistant message and tool answers, rebuilt from the steps: a handoff filter or the context
   * window may shorten `state.messages`, the session still gets everything the run said.
   */
  input?: ChatMessage[];
  /** Index into `state.steps` of the run's first step. */
  firstStep?: number;
  /** How many of the run's items were appended to the session. */
  done?: number;
  /**
   * True when the record's `state.messages` leave out the first `start` items, the session's history the
   * run began with (read back from the session on resume): a checkpoint's size does not grow with the
   * session. Records written before this field carry the whole history.
   */
  historyOmitted?: boolean;
}

/** A stored run, as the stores and `queue.get` return it. */
export interface RunRecord {
  /** The run id (`result.runId`). */
  id: string;
  /** The name of the agent that runs it (the key in a worker's `agents`). */
  agentName: string;
  /** Where the run stands. */
  status: RunStatus;
  /**
   * The `RunState` as a JSON object (`state.toJSON()`); `RunState.fromJSON(record.state, agent)` reads it.
   * With `session.historyOmitted`, its messages start after the session's first `session.start` items,
   * which a resume reads back from the session.
   */
  state: Record<string, unknown>;
  /** The calls waiting for a human (empty unless `interrupted`). */
  interruptions: ToolApprovalItem[];
  /** Incremented on every write: a write naming an older version fails with `RunConflictError`. */
  version: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Why the run failed (when `failed`). */
  error?: string;
  /** The session the run reads and appends its history to, if any. */
  session?: RunSessionLink;
  /** Calls whose tool was started and had not finished at the last checkpoint. */
  inFlight?: string[];
  /** The final answer text (when `completed`). */
  text?: string;
  /** The validated structured output (when `completed` and the agent has `output`). */
  output?: unknown;
  /** The agent that answered last (after handoffs, the one that took over), when `completed` or `interrupted`. */
  lastAgent?: string;
  /** Set when an input guardrail stopped the run (`failed`): resuming it is refused. */
  inputTripwire?: string;
  /**
   * The id of the write that stored this version (`WriteRunOptions.writeId`): after a write failed with
   * a connection error, a record at the next version with your write id is your own write, applied.
   */
  writeId?: string;
  /** The run this one was forked from and the step it was forked at (set by the fork's creator). */
  forkedFrom?: { runId: string; step: number };
  /** The queue tenant the run was enqueued for (`EnqueueOptions.tenant`), if any. */
  tenant?: string;
}

/** The writable fields of a run record (the store sets `version`, `createdAt`, `updatedAt` and `writeId`). */
export type RunRecordInput = Omit<RunRecord, 'version' | 'createdAt' | 'updatedAt' | 'writeId'>;

/** Options of `createRun` and `updateRun`. */
export interface WriteRunOptions {
  /**
   * Names this write, stored with the version it makes. Retrying a write with the same id after its reply
   * was lost answers the stored record instead of a `RunConflictError`. @default a new random id per call
   */
  writeId?: string;
}

/** Options of `pruneRuns`. */
export interface PruneRunsOptions {
  /** Remove finished runs last updated longer ago than this. @default the store's `retentionMs` */
  olderThanMs?: number;
}

/** Filter of `listRuns`. */
export interface ListRunsOptions {
  /** Only runs with this status. */
  status?: RunStatus;
  /** At most this many, newest first. @default 100 */
  limit?: number;
}

/** Where durable runs are kept, with optimistic concurrency on `version`. */
export interface RunStore {
  /** Stores a new run at version 1; a run with that id already stored is a `RunConflictError`. */
  createRun(record: RunRecordInput, options?: WriteRunOptions): Promise<RunRecord>;
  /** The run, or `undefined`; a record that cannot be read is a `StoredRunInvalidError` naming it. */
  getRun(id: string): Promise<RunRecord | undefined>;
  /**
   * Replaces the run if it is still at `expectedVersion` (then at `expectedVersion + 1`); otherwise
   * (or when it does not exist) throws `RunConflictError`. A retried write whose first attempt was
   * applied (same `writeId`, the run at `expectedVersion + 1`) answers the stored record.
   */
  updateRun(
    id: string,
    expectedVersion: number,
    record: RunRecordInput,
    options?: WriteRunOptions,
  ): Promise<RunRecord>;
  /** Runs, newest first; a record that cannot be read is skipped with a warning naming it. */
  listRuns(options?: ListRunsOptions): Promise<RunRecord[]>;
  /** Removes the run (no error when absent). */
  deleteRun(id: string): Promise<void>;
  /**
   * Removes finished runs (`completed`, `failed`) older than the store's `retentionMs`; sessions are kept.
   * Answers how many were removed. The bundled stores also prune on their own (Redis expires them).
   */
  pruneRuns?(options?: PruneRunsOptions): Promise<{ deleted: number }>;
}

/** Options of `SessionStore.addItems`. */
export interface AddItemsOptions {
  /** Items added with a key already used on this session are not added again (a retried append). */
  idempotencyKey?: string;
}

/** A conversation's items by session id (the shape of the OpenAI Agents SDK `Session`). */
export interface SessionStore {
  /** The session's items, oldest first; with `limit`, the last `limit` of them. */
  getItems(sessionId: string, limit?: number): Promise<ChatMessage[]>;
  /** Appends items at the end, atomically. */
  addItems(sessionId: string, items: readonly ChatMessage[], options?: AddItemsOptions): Promise<void>;
  /** Removes and returns the last item. */
  popItem(sessionId: string): Promise<ChatMessage | undefined>;
  /** Removes every item of the session. */
  clearSession(sessionId: string): Promise<void>;
}

/** Items `Store.commitRun` appends to a session in the same atomic write as the run's record. */
export interface SessionAppend {
  /** The session appended to. */
  sessionId: string;
  /** The items, appended in order at the end of the session. */
  items: readonly ChatMessage[];
}

/** One event of a run's stored log: its SSE id and its JSON (as `toAgentEventJson` writes it). */
export interface StoredRunEvent {
  /** The event's id in its run: 0, 1, 2, ... in the order appended; the SSE `id:`. */
  id: number;
  /** The event as JSON text. */
  data: string;
}

/** A value of `SharedValueStore` with the version a conditional write names. */
export interface VersionedValue {
  /** The value, or `undefined` when none is set (or it expired). */
  value: string | undefined;
  /** 0 when absent; grows by one with each write. */
  version: number;
}

/**
 * A run's event log, kept so a client can reconnect on any server with `Last-Event-ID` and get what it
 * missed. Optional on a `Store`: without it, a run's events live only in the process that runs it.
 */
export interface RunEventLogStore {
  /**
   * Appends `events` with ids `firstId`, `firstId + 1`, ... Ids already stored are skipped (a retried
   * append changes nothing; one overlapping the stored ids appends only its new part); a `firstId` past
   * the next free id is refused (no gaps: the bundled stores throw `RunEventGapError` naming both). The log
   * expires `ttlMs` after its last append when given (an append without `ttlMs` keeps the log's expiry);
   * an expired log is absent, so the next append starts again at id 0.
   */
  appendRunEvents(
    runId: string,
    firstId: number,
    events: readonly string[],
    options?: { ttlMs?: number },
  ): Promise<void>;
  /**
   * The stored events with an id above `afterId` (all when undefined or -1), in id order, at most `limit`;
   * `[]` for an unknown or expired log.
   */
  readRunEvents(runId: string, afterId?: number, limit?: number): Promise<StoredRunEvent[]>;
}

/**
 * Best-effort messages between the processes sharing a store (Redis pub/sub, PostgreSQL LISTEN/NOTIFY,
 * an emitter in memory): "events were appended to run X", "stop run X". A message sent while a
 * listener's connection is down is lost, so listeners also re-read what they wait for on a timer.
 * Delivery is asynchronous (`signal` answers before listeners run) and reaches the sender's own listeners
 * too. A listener that throws is reported to the store's `onWarning` and keeps no other listener from the
 * message. `fileStore` signals only within its process (every `fileStore` of the same folder).
 */
export interface SignalStore {
  /**
   * Sends `message` (at most 4,000 bytes of UTF-8; more is a `SignalTooLargeError`) to every listener of
   * `channel` (at most 200 bytes), in this and other processes.
   */
  signal(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message on `channel` from now on; answers the unsubscribe function. */
  onSignal(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
}

/**
 * Small shared values written with compare-and-set: a session's active and paused run, a stop request.
 * An expired or deleted value reads as absent (`undefined`, version 0), and a write naming version 0
 * creates it again (its version restarts at 1).
 */
export interface SharedValueStore {
  /** The value at `key` and its version. */
  getValue(key: string): Promise<VersionedValue>;
  /**
   * Writes `value` (`undefined` deletes it) only when the stored version is still `version` (0: absent);
   * answers whether it wrote. With `ttlMs` the value expires that long after this write; without it the
   * value does not expire. A write that failed with `StoreUnavailableError` may have been applied: read
   * the value again before retrying.
   */
  setValueIf(
    key: string,
    version: number,
    value: string | undefined,
    options?: { ttlMs?: number },
  ): Promise<boolean>;
}

/** A store of runs and sessions: what `new Agent({ store })` and the queue take. */
export interface Store
  extends RunStore,
    SessionStore,
    Partial<RunEventLogStore>,
    Partial<SignalStore>,
    Partial<SharedValueStore> {
  /**
   * `updateRun` and, in the same atomic write, `addItems(append.sessionId, append.items)`: both happen or
   * neither does (a version mismatch appends nothing), so a run's last record and its session always agree.
   * A repeat with the `writeId` of a commit that was applied answers the stored record, as `updateRun` does.
   * Optional: without it a run appends, then writes its record (a crash between them can leave the two apart).
   */
  commitRun?(
    id: string,
    expectedVersion: number,
    record: RunRecordInput,
    append: SessionAppend,
    options?: WriteRunOptions,
  ): Promise<RunRecord>;
  /**
   * Releases connections the store opened itself. Every later operation rejects with `StoreClosedError`;
   * the store never reconnects.
   */
  close?(): Promise<void>;
}
