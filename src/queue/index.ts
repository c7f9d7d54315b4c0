/**
 * Durable runs spread over worker processes (`svc-agents/queue`), on BullMQ 6 with Redis or PostgreSQL.
 * bullmq, ioredis and pg are optional peer dependencies, loaded when a queue or worker is first used.
 */

export { isTransient, isTransientInfrastructureError } from '../stores/is-transient.js';
export {
  nextRunEventId,
  RunEventLogWriter,
  type RunEventLogWriterOptions,
} from '../stores/run-event-log-writer.js';
export { eventsChannel } from '../stores/run-events-signal.js';
export { BackendUnreachableError } from '../stores/store-errors.js';
export { fairPriority, MAX_TENANT_PRIORITY } from './fair-priority.js';
export type { LimitStatsRow } from './limits-backend.js';
export type { QueueConnection } from './queue-connection.js';
export {
  EventBusUnavailableError,
  QueueUnavailableError,
  RunStoppedError,
  RunWaitTimeoutError,
  StoreRewoundError,
  WorkerClockSkewError,
  WorkerClosedError,
} from './queue-errors.js';
export type { Budget, RateLimits } from './rate-limits.js';
export {
  DEFAULT_QUEUE_NAME,
  type DecideOptions,
  type EnqueueOptions,
  type QueueDecision,
  type QueueStats,
  type RequeueStrandedOptions,
  RunQueue,
  type RunQueueOptions,
  type WaitUntilFinishedOptions,
} from './run-queue.js';
export { isStoppedRecord, stopChannel } from './run-stop.js';
export {
  type RunWorker,
  type StartWorkerOptions,
  startWorker,
  type WorkerAgent,
  type WorkerAgentContext,
  type WorkerRunObserver,
  type WorkerRunStatus,
} from './start-worker.js';
