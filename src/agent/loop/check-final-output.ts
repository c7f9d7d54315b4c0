import type { z } from 'zod';
import { outputRepairMessage } from '../../tools/model-texts.js';
import { OutputValidationError } from '../errors.js';
import type { AgentStep } from '../run-result.js';
import type { RunState } from '../run-state.js';
import { parseOutput } from './structured-output.js';

/** Corrective turns allowed for an answer that does not match the output schema. */
export const MAX_OUTPUT_REPAIRS = 1;

/**
 * Checks a final answer against the agent's output schema. A bad answer gets one corrective turn
 * (a user message saying what was wrong, appended to the conversation: `repair`), if a turn is left;
 * after that it is an `OutputValidationError` carrying the raw text.
 */
export function checkFinalOutput(options: {
  schema: z.ZodType | undefined;
  step: AgentStep;
  state: RunState;
  turnsLeft: number;
}): { output: unknown } | 'repair' {
  const { schema, step, state } = options;
  if (!schema) return { output: undefined };
  const parsed = parseOutput(schema, step.text);
  if (parsed.ok) {
    state.outputRepairs = 0;
    return { output: parsed.value };
  }
  if (state.outputRepairs < MAX_OUTPUT_REPAIRS && options.turnsLeft > 0) {
    state.outputRepairs += 1;
    state.messages.push(outputRepairMessage(parsed.issues));
    return 'repair';
  }
  throw new OutputValidationError({ text: step.text, issues: parsed.issues, state, cause: parsed.cause });
}
