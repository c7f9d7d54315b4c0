import type { ChatMessage } from '../api/types/chat.js';

/** A run paused for approvals, as a `ChatStore` keeps it. */
export interface PausedRun {
  /** The chat session the run belongs to. */
  sessionId: string;
  /** `JSON.stringify(result.state)`; read back with `RunState.fromJSON`. */
  state: string;
  /** The agent's run id (`result.runId`, its key in the agent's `store`), continued on resume. */
  agentRunId?: string;
}

/**
 * Where `createChatHandler` keeps conversations and paused runs. In memory by default; a durable store
 * (Redis, PostgreSQL) implements these four methods to survive restarts and to share several servers.
 */
export interface ChatStore {
  /** The conversation of a session, or `undefined` for a new one. */
  loadSession(sessionId: string): Promise<ChatMessage[] | undefined>;
  /** Replaces the conversation of a session. */
  saveSession(sessionId: string, messages: ChatMessage[]): Promise<void>;
  /** Keeps a run paused for approvals until a decision comes. */
  savePausedRun(runId: string, run: PausedRun): Promise<void>;
  /** Removes and returns a paused run (a decision is taken once). */
  takePausedRun(runId: string): Promise<PausedRun | undefined>;
}

/** A `ChatStore` in this process's memory (lost on restart). */
export function createMemoryChatStore(): ChatStore {
  const sessions = new Map<string, ChatMessage[]>();
  const paused = new Map<string, PausedRun>();
  return {
    loadSession: async (sessionId) => sessions.get(sessionId),
    saveSession: async (sessionId, messages) => {
      sessions.set(sessionId, messages);
    },
    savePausedRun: async (runId, run) => {
      paused.set(runId, run);
    },
    takePausedRun: async (runId) => {
      const run = paused.get(runId);
      paused.delete(runId);
      return run;
    },
  };
}
