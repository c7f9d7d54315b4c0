import type { ChatMessage } from '../api/types/chat.js';
import type { ApprovalDecision } from './apply-decisions.js';
import type { ChatOwner } from './chat-owner.js';

/** A new turn of a chat session: the agent answers `messages` after the session's stored history. */
export interface ChatRunStart {
  /** The run's id: its event log's key, the agent's `runId` (its stored record) and the `x-run-id` header. */
  runId: string;
  /** The session whose history the run reads and appends its items to. */
  sessionId: string;
  /** The turn's new messages (the user's message), appended after the session's history. */
  messages: ChatMessage[];
  /** Who the run acts for (`authorize`'s answer); absent for an anonymous caller. */
  owner?: ChatOwner | undefined;
}

/** A run paused for approvals, continued with the humans' decisions under a new event log. */
export interface ChatRunContinue {
  /** The continuation's id: the key of its own event log (and the `x-run-id` header). */
  runId: string;
  /** The session of the paused run. */
  sessionId: string;
  /** The stored run paused for approvals (its agent `runId`): the same record continues. */
  pausedRunId: string;
  /** One decision per waiting tool call, already checked by the handler. */
  decisions: ApprovalDecision[];
  /** Who the run acts for (`authorize`'s answer); absent for an anonymous caller. */
  owner?: ChatOwner | undefined;
}

/**
 * Where the runs of a chat handler execute. The handler claims the session (its active run) before it
 * calls `start` or `continue`, and relays the run's events from the store's event log, so a runner only
 * has to get the run executed: in this process (`inProcessChatRunner`, the default) or on queue workers.
 * Whichever process executes it appends its events to the store's log (`executeChatRun` does that and
 * ends the run's shared values), listens for stop requests, and never runs a tool after a stop.
 */
export interface ChatRunner {
  /** Starts a run; resolves once it is accepted (running or enqueued), not when it ends. */
  start(run: ChatRunStart): Promise<void>;
  /** Continues a paused run with decisions; resolves once accepted, as `start`. */
  continue(run: ChatRunContinue): Promise<void>;
  /**
   * Asks run `runId` to stop, wherever it executes (the handler also writes the stop request to the
   * store and signals `stop:<runId>`, so any runner's process sees it). Resolves once asked, not stopped.
   */
  stop(runId: string, reason?: string): Promise<void>;
  /** Stops what this runner executes in this process and releases what it opened. */
  close(): Promise<void>;
}
