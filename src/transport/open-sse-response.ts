import type { SseResponse } from './http-request.js';
import type { SseResponseHandler } from './sse-response-handler.js';

const doneResult: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Wraps the handler of a streamed attempt whose 2xx head arrived as an {@link SseResponse}. Read failures
 * after this point (a cut socket, an abort) are thrown from `events`/`readBatch` as typed errors; nothing
 * here retries or replays.
 */
export function openSseResponse({
  handler,
  requestId,
  abortByUser,
  redact,
}: {
  handler: SseResponseHandler;
  requestId: string | undefined;
  /** Stops the attempt as the caller's abort (marks it so, and aborts the handler). */
  abortByUser: (cause: unknown) => void;
  /** Removes the API key from server text quoted in an error. */
  redact: (text: string) => string;
}): SseResponse {
  const readBatch = () => handler.readBatch();

  // A hand-written iterator over readBatch(): events of one read are served without another await.
  let batch: string[] = [];
  let index = 0;
  let finished = false;
  const iterator: AsyncIterableIterator<string> = {
    async next(): Promise<IteratorResult<string, undefined>> {
      while (index >= batch.length) {
        const next = finished ? undefined : await readBatch();
        if (next === undefined) {
          finished = true;
          return doneResult;
        }
        batch = next;
        index = 0;
      }
      return { done: false, value: batch[index++] as string };
    },
    async return(): Promise<IteratorResult<string, undefined>> {
      batch = [];
      finished = true;
      handler.close();
      return doneResult;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };

  return {
    events: iterator,
    requestId,
    abort(reason?: unknown) {
      abortByUser(reason);
    },
    readBatch,
    close() {
      handler.close();
    },
    ended() {
      return handler.sawDone ? 'done' : 'eof';
    },
    redact,
  };
}
