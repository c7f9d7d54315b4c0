import type { Dispatcher } from 'undici';
import { APIUserAbortError } from './errors/api-user-abort-error.js';
import type { SseResponse } from './http-request.js';
import { type AttemptState, mapTransportError } from './map-transport-error.js';
import { decodeSseStream } from './sse/decode-sse-stream.js';

/**
 * Wraps a 2xx streamed response body as an {@link SseResponse}. Read failures after this point (a cut
 * socket, an abort) are thrown from `events` as typed errors; nothing here retries or replays.
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
  controller: AbortController;
  release: () => void;
  apiKey: string;
}): SseResponse {
  const traceId = headers['x-trace-id'];
  let started = false;

  async function* events(): AsyncGenerator<string, void, undefined> {
    if (started) throw new Error('SseResponse.events can be iterated only once');
    started = true;
    let finished = false;
    try {
      yield* decodeSseStream(body);
      finished = true;
    } catch (error) {
      throw mapTransportError(error, state, apiKey, 'Stream interrupted');
    } finally {
      release();
      // After [DONE] read the little that may follow so the socket goes back to the pool; on an early
      // exit or error the socket is dropped.
      if (finished) body.dump().catch(() => {});
      else body.destroy();
    }
  }

  return {
    events: events(),
    requestId: Array.isArray(traceId) ? traceId[0] : traceId,
    abort(reason?: unknown) {
      state.userAborted = true;
      controller.abort(new APIUserAbortError(undefined, { cause: reason }));
    },
  };
}
