import { encodeSseFrame, type SseFrame } from './sse-frame.js';
import { normalizeSseOptions, type SseStreamOptions } from './sse-stream-options.js';

/** Where SSE text goes: a Web stream controller or a Node response. */
export interface SseSink {
  /** Writes text; resolves when the sink can take more (back pressure). */
  write(text: string): void | Promise<void>;
  /** Ends the response. */
  end(): void;
}

/** What `writeSse` streams: frames, and what to do when the client goes away. */
export interface SseSource {
  frames: AsyncIterable<SseFrame>;
  /** Called once when the client disconnects before the frames ended. */
  onCancel?: ((reason: unknown) => void) | undefined;
}

/**
 * The one SSE writing loop of the Web `Response` and the Node `ServerResponse` sinks: `retry:` first,
 * then each frame, a `: ping` comment whenever the stream was silent for `heartbeatMs`. Returns the loop's
 * promise and `cancel`, which the sink calls when the client disconnects.
 */
export function writeSse(source: SseSource, sink: SseSink, options: SseStreamOptions = {}) {
  const { heartbeatMs, retryMs } = normalizeSseOptions(options);
  const iterator = source.frames[Symbol.asyncIterator]();
  let done = false;
  // A frame waiting for the client to take the last one: no heartbeat piles up behind it.
  let waiting = false;
  let lastWrite = Date.now();
  const write = (text: string) => {
    lastWrite = Date.now();
    return sink.write(text);
  };
  const timer =
    heartbeatMs > 0
      ? setInterval(
          () => {
            if (!done && !waiting && Date.now() - lastWrite >= heartbeatMs - 5) void write(': ping\n\n');
          },
          Math.max(1, heartbeatMs),
        )
      : undefined;
  timer?.unref?.();
  const finish = () => {
    if (done) return false;
    done = true;
    if (timer) clearInterval(timer);
    return true;
  };
  const loop = (async () => {
    try {
      if (retryMs > 0) await write(`retry: ${retryMs}\n\n`);
      for (;;) {
        const step = await iterator.next();
        if (done) return;
        if (step.done) break;
        waiting = true;
        await write(encodeSseFrame(step.value));
        waiting = false;
      }
    } catch {
      // The source failed after telling the client (an `error` frame); the response simply ends.
    }
    if (finish()) sink.end();
  })();
  const cancel = (reason: unknown) => {
    if (!finish()) return;
    source.onCancel?.(reason);
    // Settles a pending next() of sources that support it; errors are the source's own business.
    void Promise.resolve(iterator.return?.()).catch(() => {});
  };
  return { done: loop, cancel };
}

/**
 * A Web `Response` streaming `source` as SSE; a cancelled body (client gone) calls `source.onCancel`.
 * Pull-based: about one frame waits in the body for the client, and the next is read from `source` only
 * when the client takes it, so a client that stops reading holds one frame, not the run's whole log.
 */
export function toSseResponse(source: SseSource, options: SseStreamOptions = {}): Response {
  const { headers } = normalizeSseOptions(options);
  const encoder = new TextEncoder();
  let cancel: ((reason: unknown) => void) | undefined;
  let pulled: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const writer = writeSse(
          source,
          {
            write(text) {
              controller.enqueue(encoder.encode(text));
              if ((controller.desiredSize ?? 1) > 0) return;
              return new Promise<void>((resolve) => {
                pulled = resolve;
              });
            },
            end: () => controller.close(),
          },
          options,
        );
        cancel = writer.cancel;
      },
      pull() {
        pulled?.();
        pulled = undefined;
      },
      cancel(reason) {
        cancel?.(reason);
        pulled?.();
        pulled = undefined;
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers });
}
