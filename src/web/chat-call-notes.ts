import type { AgentEventJson } from '../agent/agent-event-json.js';
import type { DocumentSource } from '../tools/tool.js';
import { type ChatStateStore, readJsonValue } from './chat-state.js';

/**
 * What a session's wire messages cannot say of its tool calls (the value `chat:calls:<sessionId>`): a
 * tool message holds the text the model read, the same for a result and a failure, and no sources. So a
 * restored page could not tell a failed call from a successful one, nor show what an answer cited.
 */
export interface ChatCallNotes {
  /** The error text of each call that failed, by call id. */
  errors: Record<string, string>;
  /** The documents each call's result drew on, by call id. */
  sources: Record<string, DocumentSource[]>;
}

/** The calls a session keeps notes of: the oldest are dropped past it (a restore then shows them as results). */
const MAX_NOTED_CALLS = 500;

const notesKey = (sessionId: string) => `chat:calls:${sessionId}`;

/** Collects the notes of one run from its events, as they are logged. */
export function createCallNotesCollector() {
  const notes: ChatCallNotes = { errors: {}, sources: {} };
  let count = 0;
  return {
    add(event: AgentEventJson): void {
      if (event.type === 'tool-error' && event.error.name !== 'ToolApprovalError') {
        notes.errors[event.toolCallId] = event.error.message;
        count++;
      } else if (event.type === 'source') {
        const { type: _, toolCallId, ...source } = event;
        notes.sources[toolCallId] = [...(notes.sources[toolCallId] ?? []), source];
        count++;
      }
    },
    /** The notes, or `undefined` when the run had nothing to note. */
    get(): ChatCallNotes | undefined {
      return count > 0 ? notes : undefined;
    },
  };
}

/** Adds a run's notes to its session's (compare-and-set, a few tries: notes are a courtesy, never a failure). */
export async function saveCallNotes(
  store: ChatStateStore,
  sessionId: string,
  notes: ChatCallNotes,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { value, version } = await readJsonValue<ChatCallNotes>(store, notesKey(sessionId));
    const errors = trim({ ...value?.errors, ...notes.errors });
    const sources = trim({ ...value?.sources, ...notes.sources });
    const written = JSON.stringify({ errors, sources });
    if (await store.setValueIf(notesKey(sessionId), version, written).catch(() => false)) return;
  }
}

/** The session's notes (empty when it has none). */
export async function readCallNotes(store: ChatStateStore, sessionId: string): Promise<ChatCallNotes> {
  const { value } = await readJsonValue<ChatCallNotes>(store, notesKey(sessionId));
  return { errors: value?.errors ?? {}, sources: value?.sources ?? {} };
}

function trim<T>(record: Record<string, T>): Record<string, T> {
  const entries = Object.entries(record);
  return entries.length > MAX_NOTED_CALLS ? Object.fromEntries(entries.slice(-MAX_NOTED_CALLS)) : record;
}
