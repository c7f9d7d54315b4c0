import { describe, expect, it } from 'vitest';
import {
  computeBackoffDelay,
  computeRetryDelay,
  maxServerRetryDelay,
  parseRetryAfter,
} from '../../src/transport/retry-timing.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  describe('when retry-after-ms is present', () => {
    it('should prefer it over Retry-After', () => {
      expect(parseRetryAfter({ 'retry-after-ms': '50', 'retry-after': '3' }, now)).toBe(50);
    });
  });

  describe('when Retry-After holds seconds', () => {
    it('should return milliseconds', () => {
      expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
      expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
    });
  });

  describe('when Retry-After holds an HTTP date', () => {
    it('should return the time until then, never negative', () => {
      expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000);
      expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, now)).toBe(0);
    });
  });

  describe('when the headers are absent or unreadable', () => {
    it('should return undefined', () => {
      expect(parseRetryAfter({}, now)).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
    });
  });
});

describe('computeBackoffDelay', () => {
  it('should double from 0.5 s and cap at 8 s', () => {
    const noJitter = () => 0;
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => computeBackoffDelay(n, noJitter))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
  });

  it('should take off at most a quarter as jitter', () => {
    expect(computeBackoffDelay(1, () => 0.999999)).toBe(750);
  });
});

describe('computeRetryDelay', () => {
  describe('when the server asked for a wait', () => {
    it('should use it without jitter', () => {
      expect(
        computeRetryDelay({ retryIndex: 3, headers: { 'retry-after-ms': '50' }, random: () => 0.9 }),
      ).toBe(50);
    });

    it('should cap it at 60 s', () => {
      expect(computeRetryDelay({ retryIndex: 0, headers: { 'retry-after': '3600' } })).toBe(
        maxServerRetryDelay,
      );
    });
  });

  describe('when the server gave no wait', () => {
    it('should back off', () => {
      expect(computeRetryDelay({ retryIndex: 2, random: () => 0 })).toBe(2000);
    });
  });
});
