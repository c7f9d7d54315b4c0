import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimitsBackend, limitsPrefix } from '../../src/queue/create-limits-backend.js';
import type { LimitsBackend } from '../../src/queue/limits-backend.js';
import { normalizeConnection } from '../../src/queue/queue-connection.js';
import { bucketsFor, normalizeRateLimits, takeFromBuckets } from '../../src/queue/rate-limits.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';

/** A window so long that nothing refills while a test runs: every answer is exact. */
const FROZEN = { windowMs: 1e12, burst: 1 } as const;

describe('takeFromBuckets', () => {
  const limits = normalizeRateLimits({ models: { m: { requests: 60, tokens: 600 } }, windowMs: 60_000 });
  const [bucket] = bucketsFor(limits, 'p:', 'm');

  it('should take one request from a new bucket, then wait the refill time of the next', () => {
    const first = takeFromBuckets([bucket!], [undefined], 10, 0);
    expect(first.wait).toBe(0);
    const second = takeFromBuckets([bucket!], first.states, 10, 0);
    // 60 a minute: one request a second.
    expect(second.wait).toBe(1_000);
    expect(takeFromBuckets([bucket!], first.states, 10, 1_000).wait).toBe(0);
  });

  it('should wait for tokens, and for a pause, whichever ends later', () => {
    const state = { requests: 3, tokens: 0, updatedAt: 0, pausedUntil: 0 };
    // 600 tokens a minute: 10 tokens a second.
    expect(takeFromBuckets([bucket!], [state], 20, 0).wait).toBe(2_000);
    expect(takeFromBuckets([bucket!], [{ ...state, pausedUntil: 5_000 }], 20, 0).wait).toBe(5_000);
  });

  it('should refuse limits that are not positive, naming the field', () => {
    expect(() => normalizeRateLimits({ models: { m: { requests: 0 } } })).toThrow(
      'limits.models["m"].requests: must be a positive number per window, got 0',
    );
    expect(() => normalizeRateLimits({ windowMs: -1 })).toThrow(/limits\.windowMs/);
  });
});

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`limits backend on ${backend.name}`, () => {
    let ns: QueueNamespace;
    let limitsBackend: LimitsBackend;
    beforeAll(() => {
      ns = backend.create();
      limitsBackend = createLimitsBackend(normalizeConnection(ns.connection), ns.queueName, 60_000);
    });
    afterAll(async () => {
      await limitsBackend?.close();
      await ns?.cleanup();
    });
    const buckets = (model: string, budget: { requests?: number; tokens?: number }) =>
      bucketsFor(
        normalizeRateLimits({ models: { [model]: budget }, ...FROZEN }),
        limitsPrefix(ns.queueName),
        model,
      );

    it('should admit a bucket budget and no more, as takeFromBuckets does', async () => {
      const specs = buckets('two-requests', { requests: 2 });
      expect(await limitsBackend.take(specs, 0)).toBe(0);
      // A new bucket holds one request; the second comes only with the (frozen) refill.
      expect(await limitsBackend.take(specs, 0)).toBeGreaterThan(1e9);
    });

    it('should hold a paused bucket back for every caller until the pause ends', async () => {
      const specs = buckets('paused', { requests: 1_000 });
      await limitsBackend.pause(specs[0]!, 60_000);
      const wait = await limitsBackend.take(specs, 0);
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
    });

    it('should charge a usage above the estimate to the token budget', async () => {
      const specs = buckets('tokens', { tokens: 100 });
      expect(await limitsBackend.take(specs, 40)).toBe(0);
      expect(await limitsBackend.take(specs, 40)).toBe(0);
      await limitsBackend.adjust(specs, 30);
      // 100 - 40 - 40 - 30: the budget is overdrawn, the next request waits.
      expect(await limitsBackend.take(specs, 1)).toBeGreaterThan(0);
    });

    it('should count a tenant backlog and never below zero', async () => {
      expect(await limitsBackend.enterBacklog('t')).toBe(1);
      expect(await limitsBackend.enterBacklog('t')).toBe(2);
      await limitsBackend.leaveBacklog('t');
      await limitsBackend.leaveBacklog('t');
      await limitsBackend.leaveBacklog('t');
      expect(await limitsBackend.enterBacklog('t')).toBe(1);
    });
  });
}
