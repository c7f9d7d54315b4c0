import { RunState } from '../agent/run-state.js';
import type { RunStateJson } from '../agent/run-state-schema.js';
import type { SseFrame } from '../agent/server-sse/sse-frame.js';
import type { ChatMessage } from '../api/types/chat.js';
import { type ApprovalDecision, applyDecisions } from './apply-decisions.js';
import { type ChatOwner, clientSessionId } from './chat-owner.js';
import type { ChatRunner } from './chat-runner.js';
import {
  type ChatRunInfo,
  type ChatRunOutcome,
  type ChatStateStore,
  chatKeys,
  type PausedChatRun,
  type PendingApproval,
  readJsonValue,
  runIsOver,
  trySignal,
} from './chat-state.js';
import { relayRunEvents } from './relay-run-events.js';
import { ChatRequestError } from './web-error.js';

// Decisions are checked against the stored state without the agent: whoever continues the run checks tools.
const anyOwner = { hasFunctionTool: () => true };

/** Options of `createChatSessions`. */
export interface ChatSessionsOptions {
  store: ChatStateStore;
  runner: ChatRunner;
  generateId: () => string;
  /** How long a new run is vouched for before its executing process renews the lease. */
  leaseMs: number;
  /** How long a stop request is kept. */
  keepEndedRunsMs: number;
  /** How often a relay re-reads the log without a signal. */
  recheckMs: number;
}

/** A session as `GET /sessions/:id` tells it. */
export interface ChatSessionView {
  sessionId: string;
  messages: ChatMessage[];
  /** The run in progress, if any. */
  activeRunId: string | null;
  /** The paused run waiting for decisions, if any. */
  pausedRunId: string | null;
  /** The tool calls waiting for a decision. */
  pendingApprovals: PendingApproval[];
}

/**
 * The operations of a chat on the shared store, shared by the JSON routes and the `useChat` routes: every
 * claim is a compare-and-set on the store, so two servers never run two turns of one session or apply a
 * decision twice.
 */
export function createChatSessions(options: ChatSessionsOptions) {
  const { store, runner, generateId, leaseMs, keepEndedRunsMs, recheckMs } = options;

  const runInfo = async (runId: string) =>
    (await readJsonValue<ChatRunInfo>(store, chatKeys.run(runId))).value;
  const pausedOf = (sessionId: string) => readJsonValue<PausedChatRun>(store, chatKeys.paused(sessionId));

  /** Makes `runId` the session's active run, or answers 409 naming the run in progress. */
  async function claimSession(sessionId: string, runId: string, agentRunId: string): Promise<void> {
    const active = await store.getValue(chatKeys.active(sessionId));
    if (active.value !== undefined && !runIsOver(await runInfo(active.value))) {
      throw new ChatRequestError({
        status: 409,
        message: `sessionId: run ${active.value} is still in progress in this session`,
      });
    }
    if (!(await store.setValueIf(chatKeys.active(sessionId), active.version, runId))) {
      throw new ChatRequestError({
        status: 409,
        message: `sessionId: another run of this session started at the same moment`,
      });
    }
    const info: ChatRunInfo = { sessionId, agentRunId, leaseUntil: Date.now() + leaseMs };
    await store.setValueIf(chatKeys.run(runId), 0, JSON.stringify(info));
  }

  async function releaseSession(sessionId: string, runId: string): Promise<void> {
    const info = await runInfo(runId);
    const current = await store.getValue(chatKeys.run(runId));
    if (info)
      await store.setValueIf(
        chatKeys.run(runId),
        current.version,
        JSON.stringify({ ...info, outcome: 'failed' }),
        { ttlMs: keepEndedRunsMs },
      );
    const active = await store.getValue(chatKeys.active(sessionId));
    if (active.value === runId) await store.setValueIf(chatKeys.active(sessionId), active.version, undefined);
  }

  /** Starts a turn answering `messages`; a pending approval is a 409 unless `rejectPending` declines it. */
  async function beginMessage(
    sessionId: string,
    messages: ChatMessage[],
    options: { rejectPending?: boolean; owner?: ChatOwner | undefined } = {},
  ): Promise<string> {
    const paused = await pausedOf(sessionId);
    if (paused.value) {
      const ids = paused.value.pending.map((call) => call.toolCallId);
      if (!options.rejectPending) {
        throw new ChatRequestError({
          status: 409,
          message: `sessionId: decide the pending tool call first (${ids.join(', ')}), or send rejectPending: true`,
          details: { pendingToolCallIds: ids, pausedRunId: paused.value.runId },
        });
      }
      await rejectPending(store, sessionId, paused.value, paused.version);
    }
    const runId = generateId();
    await claimSession(sessionId, runId, runId);
    try {
      await runner.start({ runId, sessionId, messages, owner: options.owner });
    } catch (error) {
      await releaseSession(sessionId, runId);
      throw error;
    }
    return runId;
  }

  /**
   * Continues the session's paused run with `decisions`; with `pausedRunId`, only if that is the paused
   * run (a chat run id or the agent's). A bad decision keeps the run paused; of two concurrent decisions
   * (on two servers), one continues the run and the other gets 409.
   */
  async function continuePaused(
    sessionId: string,
    decisions: ApprovalDecision[] | unknown,
    pausedRunId?: string,
    owner?: ChatOwner,
  ): Promise<string> {
    const paused = await pausedOf(sessionId);
    const run = paused.value;
    if (!run || (pausedRunId !== undefined && pausedRunId !== run.runId && pausedRunId !== run.agentRunId)) {
      if (pausedRunId !== undefined && (await runInfo(pausedRunId))) {
        throw new ChatRequestError({
          status: 409,
          message: `runId: run '${pausedRunId}' is no longer waiting for approvals (decided already, or declined)`,
        });
      }
      throw new ChatRequestError({
        status: 404,
        message:
          pausedRunId !== undefined
            ? `runId: run '${pausedRunId}' is not waiting for approvals`
            : `id: chat '${sessionId}' has no run waiting for approvals`,
      });
    }
    const record = await store.getRun(run.agentRunId);
    if (record?.status !== 'interrupted') {
      throw new ChatRequestError({
        status: 409,
        message: `runId: run '${run.runId}' is no longer waiting for approvals`,
      });
    }
    // Only what applies goes on to the runner: outputs of calls answered already are the page's echo.
    const applied = applyDecisions(
      RunState.fromJSON(record.state as unknown as RunStateJson, anyOwner),
      decisions,
    );
    const runId = generateId();
    await claimSession(sessionId, runId, run.agentRunId);
    if (!(await store.setValueIf(chatKeys.paused(sessionId), paused.version, undefined))) {
      await releaseSession(sessionId, runId);
      throw new ChatRequestError({
        status: 409,
        message: `runId: run '${run.runId}' was decided by another request`,
      });
    }
    try {
      await runner.continue({
        runId,
        sessionId,
        pausedRunId: run.agentRunId,
        decisions: applied,
        owner,
      });
    } catch (error) {
      // The runner refused it: the run is paused again, for a retry.
      const now = await store.getValue(chatKeys.paused(sessionId));
      if (now.value === undefined)
        await store.setValueIf(chatKeys.paused(sessionId), now.version, JSON.stringify(run));
      await releaseSession(sessionId, runId);
      throw error;
    }
    return runId;
  }

  /**
   * The stored session of `owner`'s chat run or stored agent run, or a 404: another owner's run is
   * answered as a run that does not exist, so its id confirms nothing.
   */
  async function sessionOfRun(runId: string, owner: ChatOwner | undefined): Promise<string> {
    const sessionId = (await runInfo(runId))?.sessionId ?? (await store.getRun(runId))?.session?.id;
    if (sessionId === undefined || clientSessionId(owner, sessionId) === undefined)
      throw new ChatRequestError({ status: 404, message: `runId: no run '${runId}'` });
    return sessionId;
  }

  /** `owner`'s chat run, or a 404 (also for another owner's run). */
  async function ownRun(runId: string, owner: ChatOwner | undefined): Promise<ChatRunInfo> {
    const info = await runInfo(runId);
    if (!info || clientSessionId(owner, info.sessionId) === undefined) {
      throw new ChatRequestError({
        status: 404,
        message: `runId: no run '${runId}' in progress or recently ended`,
      });
    }
    return info;
  }

  /** `owner`'s run's events after `after`, then live; a 404 for a run the store does not know or another owner's. */
  async function events(
    runId: string,
    owner: ChatOwner | undefined,
    after?: number,
  ): Promise<{ sessionId: string; frames: AsyncIterable<SseFrame> }> {
    const info = await ownRun(runId, owner);
    return { sessionId: info.sessionId, frames: relayRunEvents({ store, runId, after, recheckMs }) };
  }

  /**
   * Asks the run to stop wherever it executes (a stored request its process re-reads, and a signal) and
   * waits a little for it to end: answers its outcome, or `running` if it has not ended yet.
   */
  async function stop(runId: string, waitMs = 10_000): Promise<ChatRunOutcome | 'running'> {
    let info = await runInfo(runId);
    if (!info) throw new ChatRequestError({ status: 404, message: `runId: no run '${runId}'` });
    if (info.outcome) return info.outcome;
    const request = await store.getValue(chatKeys.stop(runId));
    if (request.value === undefined)
      await store.setValueIf(chatKeys.stop(runId), request.version, 'stop', { ttlMs: keepEndedRunsMs });
    await trySignal(store, chatKeys.stopChannel(runId), 'stop');
    await runner.stop(runId);
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      info = await runInfo(runId);
      if (runIsOver(info)) return info?.outcome ?? 'failed';
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return 'running';
  }

  async function describe(sessionId: string): Promise<ChatSessionView | undefined> {
    const [messages, active, paused] = await Promise.all([
      store.getItems(sessionId),
      store.getValue(chatKeys.active(sessionId)),
      pausedOf(sessionId),
    ]);
    const activeRunId =
      active.value !== undefined && !runIsOver(await runInfo(active.value)) ? active.value : null;
    if (messages.length === 0 && !activeRunId && !paused.value) return undefined;
    return {
      sessionId,
      messages,
      activeRunId,
      pausedRunId: paused.value?.runId ?? null,
      pendingApprovals: paused.value?.pending ?? [],
    };
  }

  return { beginMessage, continuePaused, sessionOfRun, ownRun, events, stop, describe, runInfo };
}

/** The operations `createChatSessions` answers. */
export type ChatSessions = ReturnType<typeof createChatSessions>;

/**
 * Closes a paused run without running its calls, because the user moved on: the session gets a note
 * that the calls were declined (never a tool call without its answer), the stored run ends as failed.
 */
async function rejectPending(
  store: ChatSessionsOptions['store'],
  sessionId: string,
  paused: PausedChatRun,
  version: number,
): Promise<void> {
  if (!(await store.setValueIf(chatKeys.paused(sessionId), version, undefined))) {
    throw new ChatRequestError({
      status: 409,
      message: 'sessionId: the pending tool call was decided at the same moment',
    });
  }
  const record = await store.getRun(paused.agentRunId);
  const calls = paused.pending
    .map((call) => `${call.toolName}(${JSON.stringify(call.arguments)})`)
    .join(', ');
  await store.addItems(
    sessionId,
    [{ role: 'assistant', content: `I asked to run ${calls}; the user declined and wrote again.` }],
    { idempotencyKey: `rejected:${paused.runId}` },
  );
  if (record?.status === 'interrupted') {
    const { version: recordVersion, createdAt: _c, updatedAt: _u, writeId: _w, ...input } = record;
    await store
      .updateRun(paused.agentRunId, recordVersion, {
        ...input,
        status: 'failed',
        interruptions: [],
        error: 'The user declined the pending tool calls by sending a new message.',
      })
      .catch(() => {});
  }
}
