import { RunStateError } from '../agent/run-state.js';
import type { RunQueue } from '../queue/run-queue.js';
import { SvcError } from '../transport/errors/svc-error.js';
import type { ChatRunner } from './chat-runner.js';

/** The agent name a chat's runs are enqueued under when none is given: what `svc-agents worker` serves. */
export const DEFAULT_CHAT_AGENT_NAME = 'chat';

/** Options of `queueChatRunner`. */
export interface QueueChatRunnerOptions {
  /** The queue the workers take runs from; it must use the chat handler's store. */
  queue: RunQueue;
  /** The name the workers know the chat's agent by (a key of their `agents`). @default 'chat' */
  agentName?: string;
  /**
   * BullMQ priority of chat runs (1 is the highest): a person waits for them, so they go before batch
   * work queued without one. @default 1
   */
  priority?: number;
}

/**
 * A `ChatRunner` that runs a chat's turns on queue workers (`startWorker`, `svc-agents worker`) instead of
 * in the web process: each turn is enqueued with its session, a paused run is continued through
 * `queue.decide` (the decisions recorded in the stored run, applied once) and stopped through
 * `queue.stop`. The workers append the runs' events to the store's event log, which any web server of
 * the chat relays, so a web server restarted mid-answer loses nothing.
 * @example
 * const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store });
 * const handler = createChatHandler({ agent, store, runner: queueChatRunner({ queue }) });
 */
export function queueChatRunner({
  queue,
  agentName = DEFAULT_CHAT_AGENT_NAME,
  priority = 1,
}: QueueChatRunnerOptions): ChatRunner {
  if (!queue || typeof queue.enqueue !== 'function') {
    throw new SvcError('queue: required: the RunQueue the workers take runs from');
  }
  if (typeof agentName !== 'string' || agentName === '') {
    throw new SvcError('agentName: must be a non-empty string');
  }
  return {
    async start({ runId, sessionId, messages }) {
      await queue.enqueue(agentName, messages, { runId, session: sessionId, priority });
    },
    async continue({ runId, pausedRunId, decisions }) {
      await queue.decide(pausedRunId, decisions, { eventLogId: runId });
    },
    async stop(runId, reason) {
      try {
        await queue.stop(runId, reason);
      } catch (error) {
        // Not stored (yet, or any more): the stop request the handler wrote stops a job taking it later.
        if (!RunStateError.isInstance(error)) throw error;
      }
    },
    // The queue is the caller's: it may serve other handlers.
    async close() {},
  };
}
