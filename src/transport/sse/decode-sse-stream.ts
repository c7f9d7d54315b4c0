import { SseDecoder } from './sse-decoder.js';

/**
 * Yields the `data` payload of each server-sent event read from `body` (chunks of bytes in any split),
 * stopping at `data: [DONE]` (not yielded). Leaving the loop early stops reading `body`.
 */
export async function* decodeSseStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<string, void, undefined> {
  const decoder = new SseDecoder();
  for await (const chunk of body) {
    const events = decoder.decode(chunk);
    for (let i = 0; i < events.length; i++) yield events[i] as string;
    if (decoder.done) return;
  }
  yield* decoder.end();
}
