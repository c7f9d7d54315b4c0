import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseDecoder } from '../../../src/transport/sse/sse-decoder.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Bytes copied by Buffer.concat while `run` decodes: linear decoding copies each byte a bounded number of times. */
function bytesCopiedBy(run: () => void): number {
  const original = Buffer.concat;
  let copied = 0;
  vi.spyOn(Buffer, 'concat').mockImplementation((list, totalLength) => {
    const result = original(list, totalLength);
    copied += result.length;
    return result;
  });
  run();
  return copied;
}

describe('SseDecoder on one long data line (defect 8)', () => {
  it('should copy each byte of a long \\n-terminated event a bounded number of times', () => {
    const payload = 'x'.repeat(4 * 1024 * 1024);
    const bytes = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`);
    let events: string[] = [];
    const copied = bytesCopiedBy(() => {
      const decoder = new SseDecoder();
      for (let i = 0; i < bytes.length; i += 16 * 1024) {
        events = events.concat(decoder.decode(bytes.subarray(i, i + 16 * 1024)));
      }
    });
    expect(events).toEqual([payload]);
    // Quadratic carry re-copies the line on every read: ~256 reads x 2 MB on average = ~512 MB.
    expect(copied).toBeLessThan(3 * bytes.length);
  });

  it('should decode one 20 MiB data line in linear time', () => {
    const payload = 'x'.repeat(20 * 1024 * 1024);
    const bytes = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`);
    const decoder = new SseDecoder();
    const events: string[] = [];
    const started = performance.now();
    for (let i = 0; i < bytes.length; i += 16 * 1024)
      events.push(...decoder.decode(bytes.subarray(i, i + 16 * 1024)));
    // Linear decoding takes tens of ms (bench/results/2026-11-24-sse-decode.md); re-joining the line on
    // every read (1280 reads of a line growing to 20 MiB) takes seconds.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toHaveLength(payload.length);
  });

  it('should refuse an event past maxEventBytes, with \\n and with \\r\\n line ends', () => {
    for (const lineEnd of ['\n', '\r\n']) {
      const decoder = new SseDecoder({ maxEventBytes: 1000 });
      expect(decoder.decode(Buffer.from(`data: small${lineEnd}${lineEnd}`))).toEqual(['small']);
      expect(() => {
        for (let i = 0; i < 20; i++) decoder.decode(Buffer.from(`data: ${'y'.repeat(100)}`));
      }).toThrow(/larger than 1000 bytes/);
    }
  });

  it('should refuse an event made of many data lines past maxEventBytes', () => {
    const decoder = new SseDecoder({ maxEventBytes: 1000 });
    expect(() => {
      for (let i = 0; i < 20; i++) decoder.decode(Buffer.from(`data: ${'z'.repeat(100)}\n`));
    }).toThrow(/larger than 1000 bytes/);
  });

  it('should count maxEventBytes in UTF-8 bytes, not characters', () => {
    // n three-byte characters are 3n bytes of data but n characters (6 more bytes with the "data: " field).
    const feed = (decoder: SseDecoder, text: string) => {
      const bytes = Buffer.from(text);
      const events: string[] = [];
      for (let i = 0; i < bytes.length; i += 16) events.push(...decoder.decode(bytes.subarray(i, i + 16)));
      return events;
    };
    const han = (n: number) => '漢'.repeat(n);
    const tooLarge = /larger than 100 bytes/;
    expect(feed(new SseDecoder({ maxEventBytes: 100 }), `data: ${han(31)}\n\n`)).toEqual([han(31)]);
    expect(() => feed(new SseDecoder({ maxEventBytes: 100 }), `data: ${han(34)}\n\n`)).toThrow(tooLarge);
    // Arriving in one read makes no difference.
    expect(() => new SseDecoder({ maxEventBytes: 100 }).decode(Buffer.from(`data: ${han(34)}\n\n`))).toThrow(
      tooLarge,
    );
    // Four-byte characters are two UTF-16 code units each.
    expect(feed(new SseDecoder({ maxEventBytes: 100 }), `data: ${'😀'.repeat(20)}\n\n`)).toHaveLength(1);
    expect(() => feed(new SseDecoder({ maxEventBytes: 100 }), `data: ${'😀'.repeat(26)}\n\n`)).toThrow(
      tooLarge,
    );
    // The data lines of one event count together, in bytes too.
    const lines = Array.from({ length: 4 }, () => `data: ${han(10)}\n`).join('');
    expect(() => feed(new SseDecoder({ maxEventBytes: 100 }), `${lines}\n`)).toThrow(tooLarge);
    expect(feed(new SseDecoder({ maxEventBytes: 200 }), `${lines}\n`)).toEqual([
      Array.from({ length: 4 }, () => han(10)).join('\n'),
    ]);
  });
});
