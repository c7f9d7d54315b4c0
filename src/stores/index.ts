/**
 * Stores of durable runs and conversation sessions (`svc-agents/stores`): `fileStore` (the embedded
 * default), `memoryStore`, `redisStore` (ioredis) and `postgresStore` (pg). Redis and PostgreSQL drivers
 * are optional peer dependencies, loaded only when such a store is first used.
 */

export type {
  RunQuery,
  RunQueryPage,
  RunQueryStore,
  RunSortKey,
  RunSummary,
} from '../agent/durable/run-query.js';
export type {
  AddItemsOptions,
  ListRunsOptions,
  PruneRunsOptions,
  RunEventLogStore,
  RunRecord,
  RunRecordInput,
  RunSessionLink,
  RunStatus,
  RunStore,
  SessionAppend,
  SessionStore,
  SharedValueStore,
  SignalStore,
  Store,
  StoredRunEvent,
  VersionedValue,
  WriteRunOptions,
} from '../agent/durable/store.js';
export {
  runSearchText,
  type SummarizeRunOptions,
  summarizeRun,
} from '../agent/durable/summarize-run.js';
export { RunConflictError } from '../agent/errors.js';
export { type FileStoreOptions, fileStore } from './file-store.js';
export { type FollowRunEventsOptions, followRunEvents } from './follow-run-events.js';
export type { GuardedStore } from './guard-store.js';
export { isTransient } from './is-transient.js';
export { defaultMemoryStoreOptions, type MemoryStoreOptions, memoryStore } from './memory-store.js';
export { type PostgresStoreOptions, postgresStore } from './postgres-store.js';
export { queryRuns } from './query-runs.js';
export { type RedisStoreOptions, redisStore } from './redis-store.js';
export {
  nextRunEventId,
  RunEventLogWriter,
  type RunEventLogWriterOptions,
} from './run-event-log-writer.js';
export { eventsChannel } from './run-events-signal.js';
export {
  BackendUnreachableError,
  RunEventGapError,
  SignalTooLargeError,
  StoreClosedError,
  StoredRunInvalidError,
  StoreInputError,
  StoreUnavailableError,
  StoreWriteError,
} from './store-errors.js';
export { defaultStoreOptions, type StoreOptions } from './store-options.js';
