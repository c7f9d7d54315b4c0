import type { RunResult } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { collectSources } from './tool-result-sources.js';

/** The result of a run from its state: completed (with `output`) or interrupted for approvals. */
export function buildRunResult<Output>(
  state: RunState,
  status: 'completed' | 'interrupted',
  output?: Output,
  runId = '',
): RunResult<Output> {
  const last = state.steps.at(-1);
  const interrupted = status === 'interrupted';
  // One object literal (no spread of a shared base): built once per run, on its hot path.
  const result = {
    text: last?.text ?? '',
    messages: state.messages.slice(),
    steps: state.steps.slice(),
    usage: { ...state.usage },
    finishReason: last?.finishReason ?? null,
    state,
    runId,
    status,
    output: interrupted ? undefined : output,
    interruptions: interrupted ? state.interruptions : [],
    sources: collectSources(state.steps),
  } as RunResult<Output>;
  if (last?.audio) result.audio = last.audio;
  return result;
}
