import { defaults } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';

/** Options every bundled store takes. */
export interface StoreOptions {
  /**
   * Longest wait for one store operation (Redis command, PostgreSQL query, taking a connection) before it
   * fails with a transient `StoreUnavailableError`. Applies to connections the store opens itself. @default 10000
   */
  commandTimeoutMs?: number;
  /**
   * Longest wait for the store's first connection (one it opens itself) before its operation fails with a
   * transient `BackendUnreachableError` naming the address and why (refused, timed out).
   * After a first success a lost connection is retried as before. @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * How long finished runs (`completed`, `failed`) are kept after their last update; sessions are kept until
   * deleted. @default 604800000 (7 days)
   */
  retentionMs?: number;
  /** Receives warnings: a stored run skipped by `listRuns`, a dropped idle connection. @default console.warn */
  onWarning?: (message: string) => void;
}

/** `StoreOptions` with every default applied. */
export type ResolvedStoreOptions = Required<StoreOptions>;

/** The defaults of `StoreOptions`. */
export const defaultStoreOptions: ResolvedStoreOptions = {
  commandTimeoutMs: 10_000,
  connectTimeoutMs: defaults.connectTimeoutMs,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  onWarning: (message) => console.warn(message),
};

/** Checks and fills `StoreOptions` once, before any connection: a bad value names the option and the rule. */
export function resolveStoreOptions(options: StoreOptions): ResolvedStoreOptions {
  for (const name of ['commandTimeoutMs', 'connectTimeoutMs', 'retentionMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new ConfigurationError({
        field: name,
        rule: `must be a positive number of milliseconds, got ${String(value)}`,
      });
    }
  }
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
    throw new ConfigurationError({ field: 'onWarning', rule: 'must be a function' });
  }
  return {
    commandTimeoutMs: options.commandTimeoutMs ?? defaultStoreOptions.commandTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? defaultStoreOptions.connectTimeoutMs,
    retentionMs: options.retentionMs ?? defaultStoreOptions.retentionMs,
    onWarning: options.onWarning ?? defaultStoreOptions.onWarning,
  };
}
