import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../src/transport/sse/sse-decoder.js';

// Every feature the decoder handles, in one stream: a BOM, comments, LF, CRLF and lone CR line ends,
// multi-line data, other fields, multi-byte characters, an empty data line, then [DONE] and trailing noise.
const text =
  '\uFEFFdata: {"n":1}\n\n: keep-alive\n\ndata: {"t":"é世🙂"}\r\n\r\nevent: x\nid: 7\ndata: line1\ndata: line2\n\n' +
  'data:nospace\r\rdata\n\ndata: {"long":"' +
  'ab€'.repeat(400) +
  '"}\n\ndata: [DONE]\n\ndata: {"late":true}\n\n';
const bytes = Buffer.from(text);

function decodeIn(pieces: Buffer[]): string[] {
  const decoder = new SseDecoder();
  const out: string[] = [];
  for (const piece of pieces) out.push(...decoder.decode(piece));
  out.push(...decoder.end());
  return out;
}

describe('SseDecoder under random byte splits (SSE split property)', () => {
  const whole = decodeIn([bytes]);

  it('should decode the reference stream as expected', () => {
    expect(whole).toEqual([
      '{"n":1}',
      '{"t":"é世🙂"}',
      'line1\nline2',
      'nospace',
      '',
      `{"long":"${'ab€'.repeat(400)}"}`,
    ]);
  });

  it('should decode 600 random splits identically, one byte at a time included', () => {
    expect(decodeIn([...bytes].map((byte) => Buffer.from([byte])))).toEqual(whole);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const pieces = points.slice(1).map((end, i) => bytes.subarray(points[i], end));
          expect(decodeIn(pieces)).toEqual(whole);
        },
      ),
      { numRuns: 600 },
    );
  });
});
