import type { ChatMessage } from '../../api/types/chat.js';
import { RunStateError } from '../errors.js';
import { RunState, type RunStateOwner } from '../run-state.js';
import type { RunStateJson } from '../run-state-schema.js';
import type { RunRecord, SessionStore } from './store.js';

/**
 * The run's state as the record holds it, with the session's history put back in front when the record
 * left it out (`session.historyOmitted`), and the history's items themselves (empty when not omitted).
 * Older records, which carry the whole history, are read as they are.
 */
export async function readRunState(
  store: SessionStore,
  record: RunRecord,
  owner: RunStateOwner,
): Promise<{ state: RunState; history: ChatMessage[] }> {
  const link = record.session;
  const json = record.state as unknown as RunStateJson;
  if (!link?.historyOmitted || link.start === 0) {
    return { state: RunState.fromJSON(json, owner), history: [] };
  }
  const items = await store.getItems(link.id);
  if (items.length < link.start) {
    throw new RunStateError(
      `Run "${record.id}" begins with ${link.start} items of session "${link.id}", which now holds ${items.length}: the session was cleared or popped`,
    );
  }
  const messages = [...items.slice(0, link.start), ...json.messages] as RunStateJson['messages'];
  const state = RunState.fromJSON({ ...json, messages }, owner);
  return { state, history: state.messages.slice(0, link.start) };
}
