import { ConfigurationError } from '../core/errors.js';

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
  /**
   * The output of a client-side tool's call (a tool without `execute`), as the AI SDK's `addToolOutput`
   * sends it; `approved` may be left out (true). The model reads it as the tool's output. With
   * `approved: false` the call failed in the client (`reason` is the error the model reads).
   */
  output?: unknown;
}

/**
 * `value` as a non-empty list of decisions, or a `ConfigurationError` naming the entry and the rule
 * (`decisions[1].approved: required boolean`). An entry with `output` answers a client-side call.
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
    const hasOutput = Object.hasOwn(decision, 'output');
    if (hasOutput && (decision.approved === undefined || decision.approved === true)) {
      return { toolCallId: decision.toolCallId, approved: true, output: decision.output };
    }
    if (hasOutput && decision.approved === false) {
      const reason = typeof decision.reason === 'string' ? decision.reason : 'The tool failed in the client.';
      return { toolCallId: decision.toolCallId, approved: false, reason, output: undefined };
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
