/**
 * Durable runs spread over worker processes (`svc-agents/queue`), on BullMQ 6 with Redis or PostgreSQL.
 * bullmq, ioredis and pg are optional peer dependencies, loaded when a queue or worker is first used.
 */
export { isTransientInfrastructureError } from './is-transient-infrastructure-error.js';
export type { QueueConnection } from './queue-connection.js';
export { QueueUnavailableError, WorkerClosedError } from './queue-errors.js';
export {
  DEFAULT_QUEUE_NAME,
  type EnqueueOptions,
  type RequeueStrandedOptions,
  RunQueue,
  type RunQueueOptions,
  type WaitUntilFinishedOptions,
} from './run-queue.js';
export { type RunWorker, type StartWorkerOptions, startWorker } from './start-worker.js';
