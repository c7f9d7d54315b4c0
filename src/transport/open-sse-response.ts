import type { Dispatcher } from 'undici';
import { APIUserAbortError } from './errors/api-user-abort-error.js';
import type { SseResponse } from './http-request.js';
import { type AttemptState, mapTransportError } from './map-transport-error.js';
import { SseDecoder } from './sse/sse-decoder.js';

const doneResult: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Wraps a 2xx streamed response body as an {@link SseResponse}. Read failures after this point (a cut
 * socket, an abort) are thrown from `events`/`readBatch` as typed errors; nothing here retries or replays.
 * One await per network read: each read's bytes are decoded into the array of payloads it completes.
 */
export function openSseResponse({
  body,
  headers,
  state,
  controller,
  release,
  apiKey,
}: {
  body: Dispatcher.ResponseData['body'];
  headers: Dispatcher.ResponseData['headers'];
  state: AttemptState;
  controller: { abort(reason?: unknown): void };
  release: () => void;
  apiKey: string;
}): SseResponse {
  const traceId = headers['x-trace-id'];
  const decoder = new SseDecoder();
  // Not destroyed on return: after [DONE] the rest of the body is drained so the socket goes back to the pool.
  const reads: AsyncIterator<Uint8Array> =
    typeof body.iterator === 'function'
      ? body.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]()
      : body[Symbol.asyncIterator]();
  let finished = false;

  function finish(drain: boolean): void {
    if (finished) return;
    finished = true;
    release();
    if (drain) body.dump().catch(() => {});
    else body.destroy();
  }

  async function readBatch(): Promise<string[] | undefined> {
    try {
      while (!finished) {
        if (decoder.done) break;
        const read = await reads.next();
        if (read.done) {
          const rest = decoder.end();
          finish(true);
          return rest.length > 0 ? rest : undefined;
        }
        const events = decoder.decode(read.value);
        if (decoder.done) finish(true);
        if (events.length > 0) return events;
      }
    } catch (error) {
      finish(false);
      throw mapTransportError(error, state, apiKey, 'Stream interrupted');
    }
    finish(true);
    return undefined;
  }

  // A hand-written iterator over readBatch(): events of one read are served without another await.
  let batch: string[] = [];
  let index = 0;
  const iterator: AsyncIterableIterator<string> = {
    async next(): Promise<IteratorResult<string, undefined>> {
      while (index >= batch.length) {
        const next = finished ? undefined : await readBatch();
        if (next === undefined) return doneResult;
        batch = next;
        index = 0;
      }
      return { done: false, value: batch[index++] as string };
    },
    async return(): Promise<IteratorResult<string, undefined>> {
      batch = [];
      finish(false);
      return doneResult;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };

  return {
    events: iterator,
    requestId: Array.isArray(traceId) ? traceId[0] : traceId,
    abort(reason?: unknown) {
      state.userAborted = true;
      controller.abort(new APIUserAbortError(undefined, { cause: reason }));
    },
    readBatch,
    close() {
      finish(false);
    },
  };
}
