import type { ToolCall } from '../../api/types/chat.js';
import type { RunState } from '../run-state.js';

/**
 * Gives every function call of a new turn an id no earlier call of the conversation used, before the turn
 * enters the history. Some OpenAI-compatible servers number ids per turn (`call_0`, `call_1`, ...): a reused
 * id would be answered from the run's ledger of finished calls (the call would never run) and would pair two
 * `tool` messages with one id. A reused id, or one repeated within the turn, becomes `<id>_<n>` (the
 * smallest free `n` from 2), in the assistant message, the events and the `tool` message alike; ids that
 * are already distinct are left as they came. Renames `calls` in place; answers true if any changed.
 */
export function distinctToolCallIds(calls: ToolCall[], state: RunState): boolean {
  if (calls.length === 0) return false;
  let used: Set<string> | undefined;
  let renamed = false;
  const seen = new Set<string>();
  for (const call of calls) {
    if (!seen.has(call.id) && !state.ledger.has(call.id) && !inHistory(state, call.id)) {
      seen.add(call.id);
      continue;
    }
    used ??= idsInHistory(state);
    let n = 2;
    while (seen.has(`${call.id}_${n}`) || used.has(`${call.id}_${n}`) || state.ledger.has(`${call.id}_${n}`))
      n++;
    call.id = `${call.id}_${n}`;
    seen.add(call.id);
    renamed = true;
  }
  return renamed;
}

/** True when some `tool` message of the history already answers `id` (newest first: reuse is recent). */
function inHistory(state: RunState, id: string): boolean {
  const messages = state.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'tool' && message.tool_call_id === id) return true;
  }
  return false;
}

function idsInHistory(state: RunState): Set<string> {
  const ids = new Set<string>();
  for (const message of state.messages) {
    if (message.role === 'tool') ids.add(message.tool_call_id);
    else if (message.role === 'assistant') for (const call of message.tool_calls ?? []) ids.add(call.id);
  }
  return ids;
}
