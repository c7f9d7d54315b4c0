import type { AgentEventJson } from '../agent/agent-event-json.js';
import type { ChatMessage } from '../api/types/chat.js';
import type { ChatSessions } from './chat-sessions.js';
import { type ChatStateStore, chatKeys, readJsonValue, runIsOver } from './chat-state.js';
import { shownItems } from './ui-shown-items.js';
import { ChatRequestError } from './web-error.js';

/** How long the values of an idle chat stay: whether it reconnects, what its page saw of its last run. */
const UI_VALUES_TTL_MS = 24 * 60 * 60 * 1000;

/** How long a run whose page went away (in a chat that resumes) waits for a reload to follow it again. */
const RELOAD_GRACE_MS = 1_500;

/** How long a message waits for another page's answer in progress before it is refused. */
const PAGE_WAIT_MS = 3_000;

/**
 * The last run a `useChat` page asked for in a chat (the value `chat:ui:last:<chatId>`): enough to put
 * in its session only what the page showed, when the page went away before the run ended.
 */
export interface UIChatRun {
  /** The chat run (its event log). */
  runId: string;
  /** How many items the session held before the run: what the run appended comes after. -1: a continuation (not rewritten). */
  before: number;
  /** The run's input (the user's message): the question of a turn still in progress. */
  input: ChatMessage[];
  /** The id of the assistant message the run's stream starts (`start.messageId`). */
  messageId?: string;
  /** The pending approvals the run's message declined (said in its stream). */
  declined?: string[];
  /** Set when the page went away before the run ended: the last event id it was sent. */
  shownUpTo?: number;
  /**
   * The page reconnects on load (`useChat({ resume: true })`): its browser sent the cookie that
   * `GET /ui/:id/stream` sets, with the message. Kept with the run, so no GET writes a value.
   */
  resumes?: boolean;
}

const uiKeys = {
  last: (chatId: string) => `chat:ui:last:${chatId}`,
};

/**
 * What the `useChat` routes keep of a chat beside the shared sessions, in the same store (so any server
 * knows it): the page's last run, whether that page reconnects (`resume: true` calls `GET /ui/:id/stream`
 * on load, which sets a cookie its later messages carry), and what it was shown of the run. `useChat`'s `stop()` only aborts its fetch: the server learns of it
 * as a client going away, which it cannot tell from a reload. So a run whose page went away is stopped
 * at once when the chat does not reconnect, and otherwise when the chat's next message comes; either
 * way the session then holds what the page showed, never more.
 */
export function createUIChatRuns(store: ChatStateStore, sessions: ChatSessions) {
  const lastOf = (chatId: string) => readJsonValue<UIChatRun>(store, uiKeys.last(chatId));

  /** Records the run a page just asked for. */
  async function begin(chatId: string, run: UIChatRun): Promise<void> {
    const { version } = await store.getValue(uiKeys.last(chatId));
    await store.setValueIf(uiKeys.last(chatId), version, JSON.stringify(run), { ttlMs: UI_VALUES_TTL_MS });
  }

  /**
   * A page stopped following `runId` after event `shownUpTo`: stop the run now unless the chat
   * reconnects; if it does, stop it unless a page follows it again within `RELOAD_GRACE_MS` (a reload
   * does; Stop does not, and the server cannot tell the two apart otherwise).
   */
  async function pageLeft(chatId: string, runId: string, shownUpTo: number): Promise<void> {
    await update(chatId, runId, (run) => ({ ...run, shownUpTo: Math.max(shownUpTo, run.shownUpTo ?? -1) }));
    if (!(await lastOf(chatId)).value?.resumes) {
      await sessions.stop(runId);
      return;
    }
    const timer = setTimeout(() => void stopUnfollowed(chatId, runId).catch(() => {}), RELOAD_GRACE_MS);
    timer.unref?.();
  }

  async function stopUnfollowed(chatId: string, runId: string): Promise<void> {
    const last = (await lastOf(chatId)).value;
    if (last?.runId !== runId || last.shownUpTo === undefined) return;
    if (!runIsOver(await sessions.runInfo(runId))) await sessions.stop(runId);
  }

  /** A page follows `runId` again (a reload resumed it): it is no longer left. */
  async function followed(chatId: string, runId: string): Promise<void> {
    await update(chatId, runId, ({ shownUpTo: _, ...run }) => run);
  }

  /** A page was shown `runId` to its end (a relay that reached it, or the stored history after it ended). */
  async function shownAll(chatId: string, runId: string): Promise<void> {
    await update(chatId, runId, ({ shownUpTo: _, ...run }) => run);
  }

  async function update(chatId: string, runId: string, change: (run: UIChatRun) => UIChatRun) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { value, version } = await lastOf(chatId);
      if (value?.runId !== runId) return;
      const written = JSON.stringify(change(value));
      if (await store.setValueIf(uiKeys.last(chatId), version, written, { ttlMs: UI_VALUES_TTL_MS })) return;
    }
  }

  /**
   * The chat's last run once no page follows it: a page still reading its answer (another tab) is never
   * cut. Waits up to `PAGE_WAIT_MS` for that page to finish or leave (a Stop just before a send arrives
   * after it), then refuses the message with a 409 that `useChat` shows as its error.
   */
  async function waitForPage(chatId: string) {
    const deadline = Date.now() + PAGE_WAIT_MS;
    for (;;) {
      const read = await lastOf(chatId);
      const last = read.value;
      if (!last || last.shownUpTo !== undefined) return read;
      const active = (await store.getValue(chatKeys.active(chatId))).value;
      if (active !== last.runId || runIsOver(await sessions.runInfo(active))) return read;
      if (Date.now() >= deadline)
        throw new ChatRequestError({
          status: 409,
          message:
            'id: an answer in this chat is still streaming to another page (a second tab?); wait for it to finish, or stop it there, then send again',
          details: { activeRunId: active },
        });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Before the chat's next message: stops the page's last run if it still goes on, and puts back in the
   * session only what the page was shown of it. Answers whether a call waiting for approval was never
   * shown (the page could not decide it: the new message declines it).
   */
  async function settleLast(chatId: string): Promise<{ unseenApproval: boolean }> {
    const { value: last, version } = await waitForPage(chatId);
    if (!last) return { unseenApproval: false };
    const active = (await store.getValue(chatKeys.active(chatId))).value;
    if (active === last.runId && !runIsOver(await sessions.runInfo(active))) await sessions.stop(active);
    if (last.shownUpTo === undefined) return { unseenApproval: false };
    const info = await sessions.runInfo(last.runId);
    const events = (await store.readRunEvents(last.runId)).map((event) => ({
      id: event.id,
      event: JSON.parse(event.data) as AgentEventJson,
    }));
    const shown = events.filter(({ id }) => id <= last.shownUpTo!).map(({ event }) => event);
    if (info?.outcome === 'interrupted') {
      const asked = events.find(({ event }) => event.type === 'tool-approval-request');
      return { unseenApproval: asked !== undefined && asked.id > last.shownUpTo };
    }
    // One server rewrites: the one that clears the mark.
    const { shownUpTo: _, ...cleared } = last;
    if (last.before < 0 || events.length === 0) return { unseenApproval: false };
    if (
      !(await store.setValueIf(uiKeys.last(chatId), version, JSON.stringify(cleared), {
        ttlMs: UI_VALUES_TTL_MS,
      }))
    )
      return { unseenApproval: false };
    let count = (await store.getItems(chatId)).length;
    for (; count > last.before; count--) await store.popItem(chatId);
    await store.addItems(chatId, shownItems(last.input, shown), { idempotencyKey: `ui-shown:${last.runId}` });
    return { unseenApproval: false };
  }

  /**
   * For `regenerate()`: removes the session's last answer and its question, and answers the question
   * (to be asked again) and what was removed (to `putBack` if the new run cannot start). A pending
   * approval must be decided first (409), as for a new message; a run in progress too.
   */
  async function takeLastQuestion(
    chatId: string,
  ): Promise<{ question: ChatMessage[]; taken: ChatMessage[] }> {
    const view = await sessions.describe(chatId);
    if (view?.activeRunId) {
      throw new ChatRequestError({
        status: 409,
        message: `id: run ${view.activeRunId} is still in progress in this chat`,
      });
    }
    if (view && view.pendingApprovals.length > 0) {
      const ids = view.pendingApprovals.map((call) => call.toolCallId);
      throw new ChatRequestError({
        status: 409,
        message: `id: decide the pending tool call first (${ids.join(', ')})`,
        details: { pendingToolCallIds: ids },
      });
    }
    const items = view?.messages ?? [];
    const at = items.findLastIndex((item) => item.role === 'user');
    if (at === -1)
      throw new ChatRequestError({
        status: 400,
        message: `id: chat '${chatId}' has no message to answer again`,
      });
    for (let count = items.length; count > at; count--) await store.popItem(chatId);
    return { question: [items[at]!], taken: items.slice(at) };
  }

  /**
   * A run whose log ended without its end (its process died, its lease ran out): nothing else will put
   * its question and what it showed in the session, so this does, once (any server may call it).
   */
  async function keepInterrupted(chatId: string, runId: string): Promise<void> {
    const last = (await lastOf(chatId)).value;
    if (last?.runId !== runId || last.before < 0) return;
    const events = (await store.readRunEvents(runId)).map(
      (event) => JSON.parse(event.data) as AgentEventJson,
    );
    await store.addItems(chatId, shownItems(last.input, events), { idempotencyKey: `stopped:${runId}` });
  }

  /** Puts back what `takeLastQuestion` removed, when the answer again could not start (a 409): nothing is lost. */
  async function putBack(chatId: string, taken: ChatMessage[], attempt: string): Promise<void> {
    await store.addItems(chatId, taken, { idempotencyKey: `regenerate-undo:${attempt}` });
  }

  return {
    lastOf,
    begin,
    pageLeft,
    followed,
    shownAll,
    settleLast,
    takeLastQuestion,
    putBack,
    keepInterrupted,
  };
}

/** The operations of `createUIChatRuns`. */
export type UIChatRuns = ReturnType<typeof createUIChatRuns>;
