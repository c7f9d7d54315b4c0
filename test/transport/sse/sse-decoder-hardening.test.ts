import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseDecoder } from '../../../src/transport/sse/sse-decoder.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Characters of long strings (1 KiB and more) that `run` scans with indexOf and builds with join: a
 * decoder that carries an unfinished line linearly touches each character a bounded number of times,
 * one that re-joins or re-scans the line on every read touches it once per read.
 */
function charactersTouchedBy(run: () => void): number {
  const indexOf = String.prototype.indexOf;
  const join = Array.prototype.join;
  let touched = 0;
  vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (
    this: string,
    search: string,
    position?: number,
  ) {
    if (this.length >= 1024) touched += this.length - (position ?? 0);
    return indexOf.call(this, search, position);
  });
  vi.spyOn(Array.prototype, 'join').mockImplementation(function (this: unknown[], separator?: string) {
    const joined = join.call(this, separator);
    if (joined.length >= 1024) touched += joined.length;
    return joined;
  });
  try {
    run();
  } finally {
    vi.restoreAllMocks();
  }
  return touched;
}

describe('SseDecoder on one long data line', () => {
  it('should touch each character of a long \\n-terminated event a bounded number of times', () => {
    const payload = 'x'.repeat(4 * 1024 * 1024);
    const bytes = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`);
    let events: string[] = [];
    const touched = charactersTouchedBy(() => {
      const decoder = new SseDecoder();
      for (let i = 0; i < bytes.length; i += 16 * 1024) {
        events = events.concat(decoder.decode(bytes.subarray(i, i + 16 * 1024)));
      }
    });
    expect(events).toEqual([payload]);
    // About 5 passes: two searches per read, one join and two searches of the finished line. Carrying the
    // line by re-joining it on every read touches ~256 reads x 2 MiB on average = ~512 MiB.
    expect(touched).toBeGreaterThan(bytes.length);
    expect(touched).toBeLessThan(8 * bytes.length);
  });

  it('should decode one 20 MiB data line under the default cap', () => {
    const payload = 'x'.repeat(20 * 1024 * 1024);
    const bytes = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`);
    const decoder = new SseDecoder();
    const events: string[] = [];
    for (let i = 0; i < bytes.length; i += 16 * 1024)
      events.push(...decoder.decode(bytes.subarray(i, i + 16 * 1024)));
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
