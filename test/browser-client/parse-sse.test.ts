import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSseFrame, type SseFrame } from '../../src/agent/server-sse/sse-frame.js';
import { parseSse, type SseItem } from '../../src/browser-client/parse-sse.js';

/** A body that delivers `text` in reads cut at `cuts`. */
function body(text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const reads: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) reads.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return new ReadableStream({
    start(controller) {
      for (const read of reads) controller.enqueue(read);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<SseItem[]> {
  const items: SseItem[] = [];
  for await (const item of parseSse(stream)) items.push(item);
  return items;
}

describe('parseSse', () => {
  describe('when the stream has comments, retry, CRLF lines and multi-line data', () => {
    it('should yield the retry advice and the messages with their ids', async () => {
      const text =
        ': ping\r\nretry: 2500\r\n\r\nid: 7\r\nevent: note\r\ndata: a\r\ndata: b\r\n\r\ndata: c\n\n';
      // Cut after every byte too: a CRLF split between two reads is still one line end.
      const everyByte = Array.from({ length: text.length }, (_, i) => i);
      expect(await collect(body(text, everyByte))).toEqual(await collect(body(text)));
      expect(await collect(body(text))).toEqual([
        { kind: 'retry', ms: 2500 },
        { kind: 'message', message: { id: '7', event: 'note', data: 'a\nb' } },
        // The last id stays in force, as EventSource keeps it.
        { kind: 'message', message: { id: '7', event: 'message', data: 'c' } },
      ]);
    });
  });

  describe('when frames written by the server encoder arrive in arbitrary reads', () => {
    it('should give back exactly the frames that were encoded', async () => {
      const frame = fc.record(
        {
          id: fc.stringMatching(/^[\w-]{1,8}$/),
          event: fc.stringMatching(/^[a-z-]{1,8}$/),
          data: fc.oneof(
            fc.string({ unit: 'grapheme', minLength: 1 }),
            fc.string({ unit: fc.constantFrom('a', ' ', ':', '\n', '\r\n', '\r', 'é', '世'), minLength: 1 }),
          ),
        },
        { requiredKeys: ['data', 'id'] },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(frame, { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat()),
          async (frames, cuts) => {
            const text = frames.map((f) => encodeSseFrame(f as SseFrame)).join('');
            const messages = (await collect(body(text, cuts))).flatMap((item) =>
              item.kind === 'message' ? [item.message] : [],
            );
            expect(messages).toEqual(
              frames.map((f) => ({
                id: f.id,
                event: f.event ?? 'message',
                data: f.data.replace(/\r\n|\r/g, '\n'),
              })),
            );
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
