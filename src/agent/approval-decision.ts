import { ConfigurationError } from '../transport/errors.js';

// One shape of a human's decision about a paused call, and one check of it, for every way a decision
// arrives: `queue.decide`, the web chat handler's request body, the browser client.

/** A human's decision about one call a paused run waits for. */
export interface ApprovalDecision {
  /** The paused call. */
  toolCallId: string;
  /** True runs the call; false rejects it (the model is told, with `reason`). */
  approved: boolean;
  /** Why it was rejected, told to the model. */
  reason?: string | undefined;
}

/**
 * `value` as a non-empty list of decisions, or a `ConfigurationError` naming the entry and the rule
 * (`decisions[1].approved: required boolean`).
 */
export function checkApprovalDecisions(value: unknown, field = 'decisions'): ApprovalDecision[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigurationError({ field, rule: 'must be a non-empty array' });
  }
  return value.map((item: unknown, index) => {
    const decision = item as Partial<ApprovalDecision> | null;
    const at = `${field}[${index}]`;
    if (typeof decision?.toolCallId !== 'string' || decision.toolCallId === '') {
      throw new ConfigurationError({ field: `${at}.toolCallId`, rule: 'required string' });
    }
    if (typeof decision.approved !== 'boolean') {
      throw new ConfigurationError({ field: `${at}.approved`, rule: 'required boolean' });
    }
    if (decision.reason !== undefined && typeof decision.reason !== 'string') {
      throw new ConfigurationError({ field: `${at}.reason`, rule: 'must be a string' });
    }
    const { toolCallId, approved, reason } = decision;
    return reason === undefined ? { toolCallId, approved } : { toolCallId, approved, reason };
  });
}
