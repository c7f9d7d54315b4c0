/** How an SSE response is written. */
export interface SseStreamOptions {
  /** A comment line (`: ping`) is sent after this many ms without output, so proxies keep the connection open. @default 15_000 */
  heartbeatMs?: number;
  /** The reconnection delay advised to the client (`retry:`), in ms; 0 sends none. @default 1_000 */
  retryMs?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // nginx and some proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
};

/** Options with their defaults. */
export function normalizeSseOptions(options: SseStreamOptions = {}) {
  const { heartbeatMs = 15_000, retryMs = 1_000, headers = {} } = options;
  return { heartbeatMs, retryMs, headers: { ...SSE_HEADERS, ...headers } };
}
