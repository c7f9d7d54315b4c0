import type { HostedToolCall, ToolCall, ToolCallDelta } from '../types/chat.js';
import type { ChoiceState } from './choice-state.js';
import type { ChunkUpdate } from './chunk-update.js';

/**
 * Merges one tool-call delta into a choice: by `index`; without one by `id`; legacy deltas with neither
 * continue the last open call unless they bring a new name. Reports the call it went to in `updates`.
 */
export function mergeToolCallDelta(
  state: ChoiceState,
  delta: ToolCallDelta,
  updates: ChunkUpdate[] | undefined,
  makeId: (choice: number, position: number) => string,
): void {
  const type = delta.type;
  if (type && type !== 'function') {
    mergeHostedCall(state, delta, updates);
    return;
  }
  const fn = delta.function;
  const name = fn?.name ?? '';
  let position: number | undefined;
  if (delta.index !== undefined && delta.index !== null) {
    position = state.byIndex.get(delta.index);
  } else if (delta.id) {
    position = state.byId.get(delta.id);
  } else if (state.lastOpen >= 0) {
    // Legacy deltas carry neither index nor id: a new name starts a call, anything else continues the last one.
    const last = state.calls[state.lastOpen]!.call;
    if (!(name && last.function.name)) position = state.lastOpen;
  }

  if (position === undefined) {
    position = state.calls.length;
    const synthetic = !delta.id;
    const call: ToolCall = {
      id: synthetic ? makeId(state.index, position) : delta.id!,
      type: 'function',
      function: { name, arguments: fn?.arguments ?? '' },
    };
    state.calls.push({ call, hosted: false, syntheticId: synthetic });
    if (delta.index !== undefined && delta.index !== null) state.byIndex.set(delta.index, position);
    if (!synthetic) state.byId.set(call.id, position);
    state.lastOpen = position;
    if (updates) {
      updates.push({
        kind: 'tool-call-start',
        choice: state.index,
        callPosition: position,
        id: call.id,
        name,
      });
      if (call.function.arguments) {
        updates.push({
          kind: 'tool-call-delta',
          choice: state.index,
          callPosition: position,
          id: call.id,
          name,
          argumentsDelta: call.function.arguments,
        });
      }
    }
    return;
  }

  const entry = state.calls[position]!;
  const call = entry.call as ToolCall;
  if (delta.id && entry.syntheticId) {
    call.id = delta.id;
    entry.syntheticId = false;
    state.byId.set(delta.id, position);
  }
  if (name && !call.function.name) call.function.name = name;
  const argumentsDelta = fn?.arguments ?? '';
  if (argumentsDelta) call.function.arguments += argumentsDelta;
  state.lastOpen = position;
  if (updates && (argumentsDelta || name || delta.id)) {
    updates.push({
      kind: 'tool-call-delta',
      choice: state.index,
      callPosition: position,
      id: call.id,
      name: call.function.name,
      argumentsDelta,
    });
  }
}

/** Hosted calls (web search) are reports, not requests: each one is kept as its own entry. */
function mergeHostedCall(state: ChoiceState, delta: ToolCallDelta, updates: ChunkUpdate[] | undefined): void {
  const fn = delta.function ?? {};
  const existing = delta.id ? state.byId.get(delta.id) : undefined;
  let position: number;
  let call: HostedToolCall;
  if (existing !== undefined && state.calls[existing]!.hosted) {
    position = existing;
    call = state.calls[existing]!.call as HostedToolCall;
    if (fn.arguments) call.function.arguments = (call.function.arguments ?? '') + fn.arguments;
    if (fn.results) call.function.results = [...(call.function.results ?? []), ...fn.results];
    if (fn.name && !call.function.name) call.function.name = fn.name;
  } else {
    position = state.calls.length;
    call = { id: delta.id ?? '', type: delta.type!, function: { ...fn } };
    state.calls.push({ call, hosted: true, syntheticId: false });
    if (delta.id) state.byId.set(delta.id, position);
  }
  updates?.push({ kind: 'hosted-tool-call', choice: state.index, callPosition: position, call });
}
