import { isPromiseLike } from '../tools/utils.js';
import type { AgentStep } from './run-result.js';

/** Decides, after a tool turn's results are in, whether the run stops instead of asking the model again. */
export type StopCondition = (options: { steps: readonly AgentStep[] }) => boolean | PromiseLike<boolean>;

/** Stops once the run has made `count` steps (model requests). */
export function isStepCount(count: number): StopCondition {
  return ({ steps }) => steps.length >= count;
}

/** Stops after a step that called the tool `toolName`. */
export function hasToolCall(toolName: string): StopCondition {
  return ({ steps }) => steps.at(-1)?.toolCalls.some((call) => call.toolName === toolName) ?? false;
}

/**
 * Stops a loop: the last `times` steps each made the same call (same name, same arguments, key order
 * ignored). The agent always applies it with `times = 3`, next to the caller's conditions.
 * @default times 3
 */
export function isRepeatedToolCall(times = 3): StopCondition {
  // A call repeated in each of the last `times` steps is one of the last step's calls: each of those is
  // looked for in the earlier steps of the window, by name first, then by the exact arguments text, and
  // only then by canonical arguments. Checked after every tool turn, so no Set, slice or key is built
  // for calls that cannot match (a different tool never needs its arguments parsed).
  return ({ steps }) => {
    if (times < 1 || steps.length < times) return false;
    const last = steps[steps.length - 1] as AgentStep;
    const from = steps.length - times;
    for (const call of last.toolCalls) {
      let everywhere = true;
      for (let index = from; index < steps.length - 1 && everywhere; index++) {
        everywhere = hasSameCall(steps[index] as AgentStep, call);
      }
      if (everywhere) return true;
    }
    return false;
  };
}

function hasSameCall(step: AgentStep, call: RecordedCall): boolean {
  for (const other of step.toolCalls) {
    if (other.toolName !== call.toolName) continue;
    if (other.arguments === call.arguments || callKey(other) === callKey(call)) return true;
  }
  return false;
}

/** True when any of the conditions holds (how `stopWhen: [a, b]` composes). */
export function anyOf(...conditions: StopCondition[]): StopCondition {
  // Synchronous while the conditions are: the agent checks after every tool turn, and most never await.
  return (options) => {
    for (let index = 0; index < conditions.length; index++) {
      const answer = (conditions[index] as StopCondition)(options);
      if (isPromiseLike(answer)) return finishAsync(answer, conditions, index, options, true);
      if (answer) return true;
    }
    return false;
  };
}

/** True when all of the conditions hold. */
export function allOf(...conditions: StopCondition[]): StopCondition {
  return (options) => {
    for (let index = 0; index < conditions.length; index++) {
      const answer = (conditions[index] as StopCondition)(options);
      if (isPromiseLike(answer)) return finishAsync(answer, conditions, index, options, false);
      if (!answer) return false;
    }
    return true;
  };
}

/** The rest of `anyOf` (`decisive` true: the first true wins) or `allOf` (the first false wins), awaited. */
async function finishAsync(
  pending: PromiseLike<boolean>,
  conditions: StopCondition[],
  index: number,
  options: { steps: readonly AgentStep[] },
  decisive: boolean,
): Promise<boolean> {
  if (Boolean(await pending) === decisive) return decisive;
  for (let next = index + 1; next < conditions.length; next++) {
    if (Boolean(await (conditions[next] as StopCondition)(options)) === decisive) return decisive;
  }
  return !decisive;
}

type RecordedCall = { toolName: string; arguments: string };

// The guard runs after every tool turn over the last `times` steps: each call's key is computed once
// (the first time it is checked) and reused while its name and arguments stay the same.
const keys = new WeakMap<RecordedCall, { toolName: string; arguments: string; key: string }>();

function callKey(call: RecordedCall): string {
  const cached = keys.get(call);
  if (cached && cached.toolName === call.toolName && cached.arguments === call.arguments) return cached.key;
  const key = `${call.toolName}\u0000${canonicalArguments(call.arguments)}`;
  keys.set(call, { toolName: call.toolName, arguments: call.arguments, key });
  return key;
}

// The same arguments may come with other whitespace or key order; compare their canonical JSON.
function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text === '' ? '{}' : text)));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    // Most arguments are flat objects whose keys already come sorted: nothing to rebuild.
    if (isSortedFlat(value as Record<string, unknown>)) return value;
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sortKeys(inner)]),
    );
  }
  return value;
}

function isSortedFlat(object: Record<string, unknown>): boolean {
  let previous: string | undefined;
  for (const key in object) {
    const inner = object[key];
    if (inner !== null && typeof inner === 'object') return false;
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
  }
  return true;
}
