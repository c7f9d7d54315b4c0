import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../src/transport/sse/sse-decoder.js';

const encoder = new TextEncoder();

function decodeAll(chunks: Uint8Array[]): string[] {
  const decoder = new SseDecoder();
  const events: string[] = [];
  for (const chunk of chunks) events.push(...decoder.decode(chunk));
  events.push(...decoder.end());
  return events;
}

function decodeString(text: string): string[] {
  return decodeAll([encoder.encode(text)]);
}

/** Splits `bytes` at the given (sorted, deduplicated) cut points. */
function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

describe('SseDecoder', () => {
  describe('when events use \\n line ends', () => {
    it('should yield each data payload and stop at [DONE]', () => {
      const text = 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\ndata: {"late":true}\n\n';
      expect(decodeString(text)).toEqual(['{"a":1}', '{"b":2}']);
    });
  });

  describe('when events use \\r\\n or lone \\r line ends', () => {
    it('should treat them like \\n', () => {
      expect(decodeString('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual(['a', 'b', 'c']);
    });
  });

  describe('when an event has several data lines, comments and other fields', () => {
    it('should join the data lines with \\n and ignore the rest', () => {
      const text = ': keep-alive\nevent: chunk\nid: 7\nretry: 100\ndata: line 1\ndata:line 2\ndata\n\n';
      expect(decodeString(text)).toEqual(['line 1\nline 2\n']);
    });
  });

  describe('when a field only starts like data', () => {
    it('should ignore it', () => {
      expect(decodeString('database: x\ndata: y\n\n')).toEqual(['y']);
    });
  });

  describe('when only comments or blank lines arrive', () => {
    it('should yield nothing', () => {
      expect(decodeString(': ping\n\n\n: ping\n\n')).toEqual([]);
    });
  });

  describe('when the stream ends without a final blank line or line end', () => {
    it('should still deliver the last event and honour a bare [DONE]', () => {
      expect(decodeString('data: a\n\ndata: b')).toEqual(['a', 'b']);
      expect(decodeString('data: a\n\ndata: [DONE]')).toEqual(['a']);
    });
  });

  describe('when a multibyte character is split across reads', () => {
    it('should decode it once whole', () => {
      const bytes = encoder.encode('data: {"t":"héllo 世界 🎉"}\n\n');
      const emoji = bytes.indexOf(0xf0);
      expect(decodeAll(splitAt(bytes, [emoji + 1, emoji + 3]))).toEqual(['{"t":"héllo 世界 🎉"}']);
    });
  });

  describe('when \\r\\n is split between two reads', () => {
    it('should not see an extra blank line', () => {
      const chunks = ['data: a\r', '\ndata: b\r', '\n\r', '\n'].map((s) => encoder.encode(s));
      expect(decodeAll(chunks)).toEqual(['a\nb']);
    });
  });

  describe('when the stream starts with a byte-order mark', () => {
    it('should drop it, with \\n or \\r\\n line ends and however the bytes are split', () => {
      for (const eol of ['\n', '\r\n']) {
        const bytes = encoder.encode(`\uFEFFdata: {"a":"é"}${eol}${eol}data: 2${eol}${eol}`);
        expect(decodeAll([bytes])).toEqual(['{"a":"é"}', '2']);
        expect(decodeAll(splitAt(bytes, [...bytes.keys()]))).toEqual(['{"a":"é"}', '2']);
      }
    });
  });

  describe('when the same bytes are split at random points', () => {
    const line = fc.constantFrom('\n', '\r\n', '\r');
    const payload = fc.string({ unit: fc.constantFrom('a', 'é', '世', '🎉', ' ', '{', '"', ':', 'x') });
    const event = fc.record({
      comment: fc.boolean(),
      lines: fc.array(payload, { minLength: 1, maxLength: 3 }),
      eol: line,
    });
    const stream = fc.record({ events: fc.array(event, { maxLength: 8 }), done: fc.boolean() });

    it('should yield the same events for every split', () => {
      fc.assert(
        fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), (s, cuts) => {
          let text = '';
          const expected: string[] = [];
          for (const e of s.events) {
            if (e.comment) text += `: note${e.eol}`;
            // A data line never holds a line end: payloads are built from characters without one.
            for (const l of e.lines) text += `data: ${l}${e.eol}`;
            text += e.eol;
            expected.push(e.lines.join('\n'));
          }
          if (s.done) text += 'data: [DONE]\n\ndata: after\n\n';
          const bytes = encoder.encode(text);
          const whole = decodeAll([bytes]);
          expect(whole).toEqual(expected);
          expect(decodeAll(splitAt(bytes, cuts))).toEqual(whole);
          // One byte at a time is the harshest split.
          expect(decodeAll(splitAt(bytes, [...bytes.keys()]))).toEqual(whole);
        }),
        { numRuns: 300 },
      );
    });
  });
});
