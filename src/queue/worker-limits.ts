import type { Job } from 'bullmq';
import type { AgentResumeOptions } from '../agent/agent-options.js';
import type { AgentEvent } from '../agent/events.js';
import { createLimitsBackend, limitsPrefix } from './create-limits-backend.js';
import { createFleetRateLimiter, type FleetRateLimiter } from './fleet-rate-limiter.js';
import type { LimitsBackend } from './limits-backend.js';
import type { RunJobData } from './load-bullmq.js';
import type { NormalizedConnection } from './queue-connection.js';
import { normalizeRateLimits, type RateLimits } from './rate-limits.js';

/** What a worker adds to one run for the shared limits and tenant fairness. */
export interface RunLimits {
  /** Resume options: the run's budget, when the worker has limits. */
  options: Pick<AgentResumeOptions, 'requestBudget'>;
  /** Sees each event of the run (fallbacks are counted). */
  observe(event: AgentEvent): void;
}

/** A worker's limits and fairness bookkeeping, for every run it takes. */
export interface WorkerLimits {
  /** Called when a job starts: its tenant's backlog shrinks (once per run), and its run's limits. */
  start(job: Job<RunJobData>): Promise<RunLimits>;
  close(): Promise<void>;
}

/** The limits of `startWorker({ limits })` (checked here, before the worker takes a job). */
export function createWorkerLimits(
  connection: NormalizedConnection,
  queueName: string,
  limits: RateLimits | undefined,
  onError: (error: unknown) => void,
): WorkerLimits {
  // Without budgets the limiter still shares the service's 429s: the first one pauses the model on
  // every worker of the queue before their next request.
  const normalized = normalizeRateLimits(limits ?? {});
  let backend: LimitsBackend | undefined;
  const open = () => {
    backend ??= createLimitsBackend(connection, queueName, normalized.windowMs);
    return backend;
  };
  const limiter: FleetRateLimiter = createFleetRateLimiter({
    limits: normalized,
    backend: open(),
    prefix: limitsPrefix(queueName),
    onError,
  });
  return {
    async start(job) {
      const { tenant } = job.data;
      if (tenant !== undefined && !job.data.started) {
        // Out of the backlog that ranks the tenant's next runs; marked so a retry does not count twice.
        await open().leaveBacklog(tenant).catch(onError);
        await job.updateData({ ...job.data, started: true }).catch(onError);
      }
      const fleet = limiter;
      return {
        options: { requestBudget: fleet.forRun({ tenant }) },
        observe: (event) => {
          if (event.type === 'model-fallback') fleet.countFallback(event.from, tenant);
        },
      };
    },
    async close() {
      await backend?.close();
    },
  };
}
