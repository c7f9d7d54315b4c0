import { SignalTooLargeError, StoreInputError } from './store-errors.js';

/** The most bytes a signal's message may have: PostgreSQL's NOTIFY payload (8,000 bytes) with room for the channel. */
export const MAX_SIGNAL_BYTES = 4000;
/** The most bytes a signal's channel name may have. */
export const MAX_CHANNEL_BYTES = 200;

function fail(operation: string, field: string, rule: string): never {
  throw new StoreInputError({ operation, field, rule });
}

function checkId(operation: string, field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) fail(operation, field, 'must be a non-empty string');
}

function checkTtl(operation: string, options: { ttlMs?: number } | undefined): number | undefined {
  const ttlMs = options?.ttlMs;
  if (ttlMs === undefined) return undefined;
  if (!(typeof ttlMs === 'number' && Number.isInteger(ttlMs) && ttlMs > 0)) {
    fail(operation, 'ttlMs', `must be a positive integer number of milliseconds, got ${String(ttlMs)}`);
  }
  return ttlMs;
}

/** Checks `appendRunEvents`' arguments; answers its `ttlMs`. */
export function checkAppendRunEvents(
  runId: unknown,
  firstId: unknown,
  events: unknown,
  options: { ttlMs?: number } | undefined,
): number | undefined {
  const operation = 'appendRunEvents';
  checkId(operation, 'runId', runId);
  if (!(typeof firstId === 'number' && Number.isSafeInteger(firstId) && firstId >= 0)) {
    fail(operation, 'firstId', `must be an integer >= 0, got ${String(firstId)}`);
  }
  if (!Array.isArray(events)) fail(operation, 'events', 'must be an array of strings');
  events.forEach((event, index) => {
    if (typeof event !== 'string') fail(operation, `events[${index}]`, 'must be a string');
  });
  return checkTtl(operation, options);
}

/** Checks `readRunEvents`' arguments. */
export function checkReadRunEvents(runId: unknown, afterId: unknown, limit: unknown): void {
  const operation = 'readRunEvents';
  checkId(operation, 'runId', runId);
  if (
    afterId !== undefined &&
    !(typeof afterId === 'number' && Number.isSafeInteger(afterId) && afterId >= -1)
  ) {
    fail(operation, 'afterId', `must be an integer >= -1 or undefined, got ${String(afterId)}`);
  }
  if (limit !== undefined && !(typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0)) {
    fail(operation, 'limit', `must be a positive integer or undefined, got ${String(limit)}`);
  }
}

/** Checks a channel name (`signal`, `onSignal`). */
export function checkChannel(operation: string, channel: unknown): void {
  checkId(operation, 'channel', channel);
  if (Buffer.byteLength(channel as string) > MAX_CHANNEL_BYTES) {
    fail(operation, 'channel', `must be at most ${MAX_CHANNEL_BYTES} bytes`);
  }
}

/** Checks `signal`'s arguments: a message over `MAX_SIGNAL_BYTES` is a `SignalTooLargeError`. */
export function checkSignal(channel: unknown, message: unknown): void {
  checkChannel('signal', channel);
  if (typeof message !== 'string') fail('signal', 'message', 'must be a string');
  const bytes = Buffer.byteLength(message);
  if (bytes > MAX_SIGNAL_BYTES) {
    throw new SignalTooLargeError({ channel: channel as string, bytes, limit: MAX_SIGNAL_BYTES });
  }
}

/** Checks `onSignal`'s arguments. */
export function checkOnSignal(channel: unknown, listener: unknown): void {
  checkChannel('onSignal', channel);
  if (typeof listener !== 'function') fail('onSignal', 'listener', 'must be a function');
}

/** Checks `getValue`'s key. */
export function checkGetValue(key: unknown): void {
  checkId('getValue', 'key', key);
}

/** Checks `setValueIf`'s arguments; answers its `ttlMs`. */
export function checkSetValueIf(
  key: unknown,
  version: unknown,
  value: unknown,
  options: { ttlMs?: number } | undefined,
): number | undefined {
  const operation = 'setValueIf';
  checkId(operation, 'key', key);
  if (!(typeof version === 'number' && Number.isSafeInteger(version) && version >= 0)) {
    fail(operation, 'version', `must be an integer >= 0 (0: absent), got ${String(version)}`);
  }
  if (value !== undefined && typeof value !== 'string')
    fail(operation, 'value', 'must be a string or undefined');
  return checkTtl(operation, options);
}
