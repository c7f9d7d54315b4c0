import { ConfigurationError } from '../core/errors.js';

/** Runs of one tenant ranked apart; deeper backlogs share the last rank (FIFO among them). */
const RANKS = 1024;
/** The highest `priority` a tenant's run may have: BullMQ's ceiling (2^21) over the ranks. */
export const MAX_TENANT_PRIORITY = 2_097_152 / RANKS;

/**
 * The BullMQ priority of a tenant's run: round-robin by tenant within each priority level. The n-th
 * queued run of every tenant gets rank n, and a lower rank goes first, so a tenant with 1,000 queued runs
 * does not hold back another tenant's first run: that one waits for at most one run per tenant (those of
 * rank 1), whatever the backlogs. `priority` (1 first) orders levels before ranks: interactive before batch.
 * @param priority the run's priority, 1 when it has none
 * @param backlog the tenant's queued runs, this one included
 */
export function fairPriority(priority: number | undefined, backlog: number): number {
  const level = priority ?? 1;
  if (!Number.isInteger(level) || level < 1 || level > MAX_TENANT_PRIORITY) {
    throw new ConfigurationError({
      field: 'priority',
      rule: `must be an integer from 1 to ${MAX_TENANT_PRIORITY} for a run with a tenant, got ${String(priority)}`,
    });
  }
  return (level - 1) * RANKS + Math.min(Math.max(1, backlog), RANKS);
}
