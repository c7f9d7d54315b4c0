import { SseDecoder } from './sse-decoder.js';

/**
 * Yields the `data` payload of each server-sent event read from `body` (chunks of bytes in any split),
 * stopping at `data: [DONE]` (not yielded). Stopping at `[DONE]` does not destroy a stream body that offers
 * `iterator({ destroyOnReturn: false })` (node Readable, undici's body): the caller can then drain the rest so
 * a keep-alive socket goes back to the pool.
 */
export async function* decodeSseStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<string, void, undefined> {
  const decoder = new SseDecoder();
  const chunks = hasIterator(body) ? body.iterator({ destroyOnReturn: false }) : body;
  for await (const chunk of chunks) {
    const events = decoder.decode(chunk);
    for (let i = 0; i < events.length; i++) yield events[i] as string;
    if (decoder.done) return;
  }
  yield* decoder.end();
}

interface IterableWithOptions extends AsyncIterable<Uint8Array> {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterable<Uint8Array>;
}

function hasIterator(body: AsyncIterable<Uint8Array>): body is IterableWithOptions {
  return typeof (body as Partial<IterableWithOptions>).iterator === 'function';
}
