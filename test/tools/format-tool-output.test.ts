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

  describe('when the value has no JSON form', () => {
    it('should fall back to its string form instead of throwing', () => {
      const circular: Record<string, unknown> = { name: 'loop' };
      circular.self = circular;
      expect(formatToolOutput(circular)).toBe('[object Object]');
      expect(formatToolOutput(() => 1)).toBe('() => 1');
    });
  });
});
