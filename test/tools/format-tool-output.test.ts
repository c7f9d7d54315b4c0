import { describe, expect, it } from 'vitest';
import { formatToolOutput } from '../../src/tools/format-tool-output.js';

describe('formatToolOutput', () => {
  describe('when the tool returns text or nothing', () => {
    it('should pass a string through and turn undefined into an empty message', () => {
      expect(formatToolOutput('sunny, 21 °C')).toBe('sunny, 21 °C');
      expect(formatToolOutput(undefined)).toBe('');
    });
  });

  describe('when the tool returns a value', () => {
    it('should send its JSON', () => {
      expect(formatToolOutput({ city: 'Paris', tempC: 21, tags: ['clear'] })).toBe(
        '{"city":"Paris","tempC":21,"tags":["clear"]}',
      );
      expect(formatToolOutput(null)).toBe('null');
      expect(formatToolOutput(42)).toBe('42');
    });

    it('should write a BigInt anywhere in it as its decimal digits', () => {
      expect(formatToolOutput({ id: 12345678901234567890n, nested: [{ n: 1n }] })).toBe(
        '{"id":"12345678901234567890","nested":[{"n":"1"}]}',
      );
    });
  });

  describe('when the value has no plain JSON form', () => {
    it('should convert circular references, Map, Set, Error, Date and BigInt faithfully', () => {
      const circular: Record<string, unknown> = { name: 'loop' };
      circular.self = circular;
      expect(formatToolOutput(circular)).toBe('{"name":"loop","self":"[Circular: output]"}');
      expect(formatToolOutput(new Map([['a', 1]]))).toBe('{"a":1}');
      expect(formatToolOutput(new Map<unknown, unknown>([[{ k: 1 }, 'v']]))).toBe('[[{"k":1},"v"]]');
      expect(formatToolOutput({ tags: new Set(['x', 'y']) })).toBe('{"tags":["x","y"]}');
      const error = Object.assign(new TypeError('bad city'), { code: 'E_CITY' });
      expect(JSON.parse(formatToolOutput({ error }))).toEqual({
        error: { name: 'TypeError', message: 'bad city', code: 'E_CITY' },
      });
      expect(formatToolOutput({ at: new Date(Date.UTC(2026, 0, 2)) })).toBe(
        '{"at":"2026-01-02T00:00:00.000Z"}',
      );
      expect(formatToolOutput(10n ** 20n)).toBe('"100000000000000000000"');
      // A shared (not circular) object is written each time it appears.
      const shared = { v: 1 };
      expect(formatToolOutput([shared, shared])).toBe('[{"v":1},{"v":1}]');
    });

    it('should refuse a function or a symbol, saying where', () => {
      expect(() => formatToolOutput(() => 1)).toThrow(/function at output;/);
      expect(() => formatToolOutput({ a: [{ cb: () => 1 }] })).toThrow(/function at output\.a\[0\]\.cb/);
      expect(() => formatToolOutput({ s: Symbol('x') })).toThrow(/symbol at output\.s/);
    });
  });

  describe('when the text is longer than the cap', () => {
    it('should cut it with a marker saying how much was cut', () => {
      const text = formatToolOutput('x'.repeat(250), 100);
      expect(text.startsWith('x'.repeat(100))).toBe(true);
      expect(text).toContain('[truncated: 150 of 250 characters cut');
      expect(formatToolOutput('x'.repeat(100), 100)).toBe('x'.repeat(100));
    });

    it('should apply the default cap of 100,000 characters', () => {
      const text = formatToolOutput({ big: 'y'.repeat(20_000_000) });
      expect(text.length).toBeLessThan(100_200);
      expect(text).toContain('19,900,');
    });
  });
});
