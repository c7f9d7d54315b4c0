import type { ServerResponse } from 'node:http';
import type { SseStreamOptions } from './sse-stream-options.js';
import { normalizeSseOptions } from './sse-stream-options.js';
import { type SseSource, writeSse } from './sse-writer.js';

/**
 * Streams `source` as SSE into a Node `ServerResponse` (also Express's): writes the head, honours back
 * pressure, and calls `source.onCancel` when the client disconnects before the end. Resolves when the
 * response ended either way.
 */
export async function pipeSseToNode(
  source: SseSource,
  res: ServerResponse,
  options: SseStreamOptions = {},
): Promise<void> {
  const { headers } = normalizeSseOptions(options);
  if (!res.headersSent) res.writeHead(200, headers);
  res.flushHeaders?.();
  let closed = false;
  let drained: (() => void) | undefined;
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  const writer = writeSse(
    source,
    {
      write(text) {
        if (closed) return;
        // Events written in the same turn of the event loop leave in one socket write (bench/results/sse-bridge.md).
        if (!corked) {
          corked = true;
          res.cork();
          setImmediate(uncork);
        }
        if (res.write(text)) return;
        return new Promise<void>((resolve) => {
          drained = resolve;
          res.once('drain', resolve);
        });
      },
      end: () => {
        if (corked) uncork();
        if (!closed) res.end();
      },
    },
    options,
  );
  const onClose = () => {
    closed = true;
    drained?.();
    writer.cancel(new Error('The client closed the connection.'));
  };
  res.once('close', onClose);
  await writer.done;
  res.off('close', onClose);
}
