import { isDeepStrictEqual } from 'node:util';
import type { AgentStep } from '../../agent/run-result.js';
import { type AgentUsage, addUsage, emptyUsage } from '../../agent/usage.js';
import type { ChatMessage } from '../../api/types/chat.js';
import { type JsonChange, jsonDiff } from './json-diff.js';

// A store keeps only a run's latest record, so the state at each step is derived from it: the run's
// messages up to the step's assistant message and its tool answers, its steps so far and their usage.
// Messages a handoff filter or a context window removed cannot be brought back: where a step's assistant
// message is no longer in `messages`, the states from that step on are not derived (`boundaries` ends).

/** The state of the run after one step, as derived from its last record. */
export interface Checkpoint {
  /** The step (0-based) this checkpoint follows. */
  step: number;
  /** Model requests made so far. */
  turn: number;
  /** How many messages the conversation held then. */
  messageCount: number;
  usage: AgentUsage;
  /** What changed since the previous checkpoint (the run's input for the first). */
  diff: JsonChange[];
}

/**
 * Where each step's assistant message sits in `messages`: `boundaries[i]` is its index, so the state
 * before step `i` holds `messages.slice(0, boundaries[i])`. Shorter than `steps` when a message is gone.
 */
export function stepBoundaries(messages: readonly ChatMessage[], steps: readonly AgentStep[]): number[] {
  const boundaries: number[] = [];
  let cursor = 0;
  for (const step of steps) {
    let found = -1;
    for (let i = cursor; i < messages.length; i++) {
      if (messages[i]?.role === 'assistant' && isDeepStrictEqual(messages[i], step.message)) {
        found = i;
        break;
      }
    }
    if (found < 0) break;
    boundaries.push(found);
    cursor = found + 1;
  }
  return boundaries;
}

/** The messages and steps before step `step` (0 ≤ step ≤ steps.length), or undefined when not derivable. */
export function stateBeforeStep(
  messages: readonly ChatMessage[],
  steps: readonly AgentStep[],
  step: number,
): { messages: ChatMessage[]; steps: AgentStep[]; usage: AgentUsage } | undefined {
  const boundaries = stepBoundaries(messages, steps);
  if (step < 0 || step > steps.length) return undefined;
  let end: number;
  if (step < steps.length) {
    const at = boundaries[step];
    if (at === undefined) return undefined;
    end = at;
  } else {
    // After the last step: its tool answers included, unless they are still pending.
    if (boundaries.length < steps.length) return undefined;
    end = messages.length;
  }
  const before = steps.slice(0, step);
  return { messages: messages.slice(0, end), steps: before, usage: before.reduce(sumUsage, emptyUsage()) };
}

/**
 * Each step's checkpoint with the diff to the one before. The conversation only grows from one checkpoint
 * to the next, so its diff is the messages added; the rest of the state is diffed field by field.
 */
export function deriveCheckpoints(
  messages: readonly ChatMessage[],
  steps: readonly AgentStep[],
): Checkpoint[] {
  const boundaries = stepBoundaries(messages, steps);
  const checkpoints: Checkpoint[] = [];
  let previous = { turn: 0, usage: emptyUsage() };
  let previousEnd = boundaries[0] ?? 0;
  for (let i = 0; i < boundaries.length; i++) {
    const step = steps[i]!;
    const current = { turn: i + 1, usage: addUsage(previous.usage, step.usage) };
    const end = boundaries[i + 1] ?? (i + 1 === steps.length ? messages.length : boundaries[i]! + 1);
    const added: JsonChange[] = [];
    for (let at = previousEnd; at < end; at++) {
      added.push({ path: `messages[${at}]`, kind: 'added', after: messages[at] });
    }
    checkpoints.push({
      step: step.index,
      turn: current.turn,
      messageCount: end,
      usage: current.usage,
      diff: [...jsonDiff(previous, current), ...added],
    });
    previous = current;
    previousEnd = end;
  }
  return checkpoints;
}

function sumUsage(total: AgentUsage, step: AgentStep): AgentUsage {
  return addUsage(total, step.usage);
}
