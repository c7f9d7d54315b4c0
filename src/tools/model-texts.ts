import type { UserMessage } from '../api/types/chat.js';

// Every text svc-agents writes for the model to read (tool messages of calls that did not run or did not
// finish, corrective user messages, the handoff tool's answer), in one place: they are part of what the
// model is prompted with, so they are worded together. The tools layer is the lowest that writes any.

/**
 * The `tool` message of a call an abort stopped. `started`: true when its tool ran, false when it never
 * did, undefined when not known (the ledger forgets only an idempotent call stopped mid-run, so an unknown
 * non-idempotent call never started). A tool may ignore its signal and finish its side effect anyway, so
 * the model is told what is known, not "cancelled".
 */
export function cancelledText(toolName: string, idempotent: boolean, started?: boolean): string {
  const stopped = `Tool ${toolName} was stopped while it ran (the run was aborted); it may have taken effect`;
  if (started === true) {
    return idempotent
      ? `${stopped}, and running it again is safe.`
      : `${stopped}, so check before running it again.`;
  }
  if (started === undefined && idempotent) {
    return `Tool ${toolName} was stopped or not started (the run was aborted); it may have taken effect, and running it again is safe.`;
  }
  return `Tool ${toolName} was not run: the run was aborted before it started.`;
}

/** The `tool` message of a call that timed out, after the timeout error's own message. */
export function timedOutText(errorMessage: string): string {
  return `${errorMessage}; the call was stopped, but it had started and may have taken effect.`;
}

/** The `tool` message of a call left unstarted because its turn already failed (a resume may start it). */
export function notStartedText(toolName: string): string {
  return `Tool ${toolName} was not run: the run failed before it started.`;
}

/** The `tool` message of a call whose process stopped while it ran. */
export function interruptedText(toolName: string): string {
  return `Tool ${toolName} was interrupted: the process running it stopped before it finished. It may or may not have taken effect; check before calling it again.`;
}

/** The `tool` message of a call a human rejected (declined), with the reason when one was given. */
export function rejectionText(toolName: string, reason: string | undefined): string {
  return `The user rejected this call of ${toolName}; it was not run.${reason ? ` Reason: ${reason}` : ''}`;
}

/** The `tool` message of a call left unrun because the run hit `maxTurns`. */
export function turnLimitText(toolName: string, maxTurns: number): string {
  return `Not run: the run reached its limit of ${maxTurns} turns before ${toolName} could run.`;
}

/** The answer of a `transfer_to_<name>` tool: the agent named takes over. */
export function transferredText(agentName: string): string {
  return `Transferred to ${agentName}; it answers from here.`;
}

/** The corrective user message after an answer that does not match the output schema. */
export function outputRepairMessage(issues: readonly string[]): UserMessage {
  return {
    role: 'user',
    content:
      'Your previous answer did not match the required JSON schema:\n' +
      issues.map((issue) => `- ${issue}`).join('\n') +
      '\nAnswer again with only the corrected JSON object.',
  };
}

/** The corrective user message after an output guardrail with `repair` refused the answer. */
export function guardrailRepairMessage(guardrail: string, reason: string | undefined): UserMessage {
  const why = reason ? ` (${reason})` : '';
  return {
    role: 'user',
    content: `Your answer did not pass the ${guardrail} check${why}. Answer again, fixing that.`,
  };
}

/**
 * The marker after a tool result cut short, worded the same wherever it is cut: a tool's output over its
 * `maxOutputChars`, `read_file_content` over its limit, a result too big for the context window.
 */
export function truncationMarker(
  removed: number,
  total: number,
  unit: 'characters' | 'tokens',
  advice = 'ask for a narrower result',
): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return `[truncated: ${count(removed)} of ${count(total)} ${unit} cut; ${advice}]`;
}
