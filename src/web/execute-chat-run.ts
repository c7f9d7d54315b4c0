import type { Agent } from '../agent/agent.js';
import { toAgentEventJson } from '../agent/agent-event-json.js';
import type { AgentStream } from '../agent/agent-stream.js';
import type { RunResult } from '../agent/run-result.js';
import { RunState } from '../agent/run-state.js';
import type { RunStateJson } from '../agent/run-state-schema.js';
import type { ChatMessage } from '../api/types/chat.js';
import { RunEventLogWriter } from '../stores/run-event-log-writer.js';
import { announceRunEnd } from '../stores/run-events-signal.js';
import { applyDecisions } from './apply-decisions.js';
import { type ChatCallNotes, createCallNotesCollector, saveCallNotes } from './chat-call-notes.js';
import { type ChatOwner, clientSessionId } from './chat-owner.js';
import type { ChatRunContinue, ChatRunStart } from './chat-runner.js';
import {
  type ChatRunInfo,
  type ChatRunOutcome,
  type ChatStateStore,
  chatKeys,
  type PausedChatRun,
  readJsonValue,
} from './chat-state.js';
import { type UIChunkWriter, uiChunkWriter } from './ui-chunk-writer.js';

/** What a `ChatAgent` factory is told of the run it builds the agent for. */
export interface ChatAgentContext {
  /** The session as the client names it (unique per owner, not across owners). */
  sessionId: string;
  /** True when the conversation holds an image: answer with a vision model. */
  vision: boolean;
  /** Who the run acts for (`authorize`'s answer): build tools that reach only this user's data. */
  owner: ChatOwner | undefined;
  /**
   * Writes chunks of the AI SDK's UI message stream into the run (`data-*` parts, transient or not,
   * `file`, `source-url`, `message-metadata`), in order with its events: a `useChat` page gets them on
   * `/api/ui`, live or on a reconnect, on any server. `/api/chat` streams them as `ui-chunk` events.
   */
  ui: UIChunkWriter;
}

/**
 * The agent of a chat: one for all sessions, or one per run built from its `ChatAgentContext` (e.g. with
 * tools scoped to the owner, or a vision model for a conversation holding an image).
 */
export type ChatAgent =
  | Agent<unknown, unknown>
  | ((context: ChatAgentContext) => Agent<unknown, unknown> | Promise<Agent<unknown, unknown>>);

/** Options of `executeChatRun`. */
export interface ExecuteChatRunOptions {
  /** The agent that answers. */
  agent: ChatAgent;
  /** The shared store: the session, the agent's run record, the event log and the run's values. */
  store: ChatStateStore;
  /** The run to execute: a new turn, or a paused run's continuation. */
  run: ({ kind: 'start' } & ChatRunStart) | ({ kind: 'continue' } & ChatRunContinue);
  /** Aborts the run from this process (a closing server); a stop request aborts it too. */
  signal?: AbortSignal;
  /** How long this process vouches for the run before renewing its lease. @default 30_000 */
  leaseMs?: number;
  /** How often the stop request is re-read, since a stop signal may be lost. @default 1_000 */
  stopCheckMs?: number;
  /** How long an ended run's values stay for reconnects (its log expires with it). @default 300_000 */
  keepEndedRunsMs?: number;
  /** Told when the run could not start (an agent factory that threw, a paused state that cannot be read). */
  onError?: (error: unknown) => void;
}

/**
 * Executes one chat run in this process, wherever it was asked for (the in-process runner, a queue
 * worker): appends its events to the store's log in batches with their SSE ids (signalling
 * `events:<runId>` after each append), aborts it on a stop request (signal `stop:<runId>` or the stored
 * value, re-read on a timer), and ends its shared values: the outcome, the session's paused run, the
 * session's active run. A stopped run keeps in its session what was shown: its input and the text so far.
 */
export async function executeChatRun(options: ExecuteChatRunOptions): Promise<ChatRunOutcome> {
  const { store, run, leaseMs = 30_000, stopCheckMs = 1_000, keepEndedRunsMs = 300_000 } = options;
  const { runId } = run;
  const abort = new AbortController();
  let stopped = false;
  const stop = () => {
    stopped = true;
    abort.abort(new Error(`Run ${runId} was stopped.`));
  };
  const onOuterAbort = () => abort.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const unsubscribe = await store.onSignal?.(chatKeys.stopChannel(runId), stop).catch(() => undefined);
  const checkStop = async () => {
    if ((await store.getValue(chatKeys.stop(runId)).catch(() => undefined))?.value !== undefined) stop();
  };
  await checkStop();
  const stopTimer = setInterval(() => void checkStop(), stopCheckMs);
  const lease = new RunLease(store, runId, leaseMs);
  await lease.renew();
  // A new chat run's log starts at id 0; it outlives the run's values so a late relay still reads it.
  const log = new RunEventLogWriter(store, runId, { firstId: 0, ttlMs: keepEndedRunsMs * 2 });
  // The log lives as long as the run: renewed with the lease, so a run quiet for longer than the log's
  // time to live (a long tool, a slow model) does not lose its log, and every later event, mid-run.
  const leaseTimer = setInterval(
    () => void lease.renew().then(() => log.touch()),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  let shown = '';
  // The run's last event is appended only once the session and its values are settled: a client that
  // acts on `finish` (approves, sends the next message, reads the session) finds them so on any server.
  const held: string[] = [];
  let outcome: ChatRunOutcome = 'failed';
  let result: RunResult<unknown> | undefined;
  const notes = createCallNotesCollector();
  const ui = uiChunkWriter((data) => (held.length > 0 ? held.push(data) : log.push(data)));
  try {
    const stream = await startStream(options, abort.signal, ui);
    try {
      for await (const event of stream) {
        if (event.type === 'text-delta') shown += event.text;
        const json = toAgentEventJson(event);
        notes.add(json);
        const data = JSON.stringify(json);
        if (held.length > 0 || TERMINAL_EVENTS.has(event.type)) held.push(data);
        else log.push(data);
      }
    } catch {
      // The failure is in the log as its `error` or `abort` event.
    }
    result = await stream.result.catch(() => undefined);
    outcome = result ? (result.status === 'interrupted' ? 'interrupted' : 'completed') : 'failed';
  } catch (error) {
    // The run could not start (a bad paused state, an agent factory that threw): say so in its log.
    held.push(JSON.stringify(toAgentEventJson({ type: 'error', error })));
    options.onError?.(error);
  } finally {
    clearInterval(stopTimer);
    clearInterval(leaseTimer);
    options.signal?.removeEventListener('abort', onOuterAbort);
    await unsubscribe?.().catch(() => {});
  }
  if (!result && stopped) outcome = 'stopped';
  ui.close();
  await log.close();
  await settleChatRun({ store, run, outcome, result, shown, notes: notes.get() });
  for (const data of held) log.push(data);
  await log.close();
  await lease.end(outcome, outcome === 'interrupted' ? undefined : keepEndedRunsMs);
  await announceRunEnd(store, runId);
  return outcome;
}

/** The events after which a run has nothing more to say. */
const TERMINAL_EVENTS = new Set(['finish', 'error', 'abort']);

/**
 * Settles what a chat run leaves in the store once it ended, before its last event is appended: a stopped
 * run's session keeps what was shown, a paused run becomes the session's paused run (with its pending
 * calls), and the session's active run is released. Whatever executes a run (this process, a queue
 * worker) settles it this way.
 */
export async function settleChatRun(options: {
  store: ChatStateStore;
  run: ExecuteChatRunOptions['run'];
  outcome: ChatRunOutcome;
  result: RunResult<unknown> | undefined;
  shown: string;
  /** What the session's messages cannot say of the run's calls (failures, sources). */
  notes?: ChatCallNotes | undefined;
}): Promise<void> {
  const { store, run, outcome, result, shown } = options;
  const { runId, sessionId } = run;
  // A failed turn (a model error) keeps its question and what was shown, as the page still shows them.
  if (outcome === 'stopped' || outcome === 'failed') await keepShown(store, run, shown);
  if (options.notes) await saveCallNotes(store, sessionId, options.notes).catch(() => {});
  if (outcome === 'interrupted' && result) {
    const paused: PausedChatRun = {
      runId,
      agentRunId: result.runId,
      pending: result.interruptions.map((item) => ({
        toolCallId: item.toolCallId,
        toolName: item.toolName,
        arguments: item.input,
        ...(item.clientSide ? { clientSide: true as const } : {}),
      })),
    };
    const current = await store.getValue(chatKeys.paused(sessionId));
    await store.setValueIf(chatKeys.paused(sessionId), current.version, JSON.stringify(paused));
  }
  const active = await store.getValue(chatKeys.active(sessionId));
  if (active.value === runId) await store.setValueIf(chatKeys.active(sessionId), active.version, undefined);
}

async function startStream(
  options: ExecuteChatRunOptions,
  signal: AbortSignal,
  ui: UIChunkWriter,
): Promise<AgentStream<unknown>> {
  const { store, run, agent } = options;
  if (run.kind === 'start') {
    const history = await store.getItems(run.sessionId);
    const resolved = await agentFor(agent, run, [...history, ...run.messages], ui);
    return resolved.stream(run.messages, { runId: run.runId, session: run.sessionId, store, signal });
  }
  const record = await store.getRun(run.pausedRunId);
  if (record?.status !== 'interrupted')
    throw new Error(`Run ${run.pausedRunId} is not paused for approvals.`);
  const messages = ((record.state as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
  const resolved = await agentFor(agent, run, messages, ui);
  const state = RunState.fromJSON(record.state as unknown as RunStateJson, resolved);
  applyDecisions(state, run.decisions);
  return resolved.stream(state, { runId: run.pausedRunId, store, signal });
}

async function agentFor(
  agent: ChatAgent,
  run: ExecuteChatRunOptions['run'],
  messages: readonly ChatMessage[],
  ui: UIChunkWriter,
) {
  if (typeof agent !== 'function') return agent;
  const { owner } = run;
  const sessionId = clientSessionId(owner, run.sessionId) ?? run.sessionId;
  return agent({ sessionId, vision: holdsImage(messages), owner, ui });
}

/** True when a message of the conversation carries an image. */
export function holdsImage(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'user' &&
      Array.isArray(message.content) &&
      message.content.some((part) => part.type === 'image_url'),
  );
}

/**
 * A stopped run never reached its session (the agent appends on completion or pause): keep what the page
 * showed, so the history holds neither less nor more than the user saw, and no unanswered tool call.
 */
export async function keepShown(store: ChatStateStore, run: ExecuteChatRunOptions['run'], shown: string) {
  const items: ChatMessage[] = run.kind === 'start' ? [...run.messages] : [];
  if (shown !== '') items.push({ role: 'assistant', content: shown });
  if (items.length > 0)
    await store.addItems(run.sessionId, items, { idempotencyKey: `stopped:${run.runId}` });
}

/** The run's `chat:run:` value, renewed while it runs so a crashed process's run is seen as over. */
export class RunLease {
  constructor(
    readonly store: ChatStateStore,
    readonly runId: string,
    readonly leaseMs: number,
  ) {}

  async renew(): Promise<void> {
    await this.#write({ leaseUntil: Date.now() + this.leaseMs });
  }

  async end(outcome: ChatRunOutcome, ttlMs: number | undefined): Promise<void> {
    await this.#write({ outcome }, ttlMs);
  }

  async #write(patch: Partial<ChatRunInfo>, ttlMs?: number): Promise<void> {
    const key = chatKeys.run(this.runId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = await readJsonValue<ChatRunInfo>(this.store, key).catch(() => undefined);
      if (!read?.value) return;
      if (read.value.outcome) return;
      const info: ChatRunInfo = { ...read.value, ...patch };
      if (info.outcome) delete info.leaseUntil;
      const written = await this.store
        .setValueIf(key, read.version, JSON.stringify(info), ttlMs === undefined ? undefined : { ttlMs })
        .catch(() => false);
      if (written) return;
    }
  }
}
