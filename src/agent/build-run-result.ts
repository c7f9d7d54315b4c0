import type { RunResult } from './run-result.js';
import type { RunState } from './run-state.js';

/** The result of a run from its state: completed (with `output`) or interrupted for approvals. */
export function buildRunResult<Output>(
  state: RunState,
  status: 'completed' | 'interrupted',
  output?: Output,
  runId = '',
): RunResult<Output> {
  const last = state.steps.at(-1);
  const base = {
    text: last?.text ?? '',
    messages: [...state.messages],
    steps: [...state.steps],
    usage: { ...state.usage },
    finishReason: last?.finishReason ?? null,
    state,
    runId,
  };
  if (status === 'interrupted') {
    return { ...base, status, output: undefined, interruptions: state.interruptions };
  }
  return { ...base, status, output: output as Output, interruptions: [] };
}
