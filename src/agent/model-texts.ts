import type { UserMessage } from '../api/types/chat.js';

/** The corrective user message after an output guardrail with `repair` refused the answer. */
export function guardrailRepairMessage(guardrail: string, reason: string | undefined): UserMessage {
  const why = reason ? ` (${reason})` : '';
  return {
    role: 'user',
    content: `Your answer did not pass the ${guardrail} check${why}. Answer again, fixing that.`,
  };
}
