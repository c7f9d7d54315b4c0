import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { type Clock, systemClock } from '../../src/core/clock.js';
import { APIUserAbortError, ConfigurationError } from '../../src/core/errors.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';

/** A clock that records each wait and returns at once: time moves only as far as the waits say. */
function recordingClock(start = Date.UTC(2026, 10, 28)): Clock & { waits: number[] } {
  let now = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  };
}

describe('the clock retries wait on', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emu.close();
  });

  describe('when a request is retried with a test clock', () => {
    it('should wait the backoff and the asked Retry-After on that clock, not on the wall', async () => {
      const clock = recordingClock();
      const client = new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey, maxRetries: 3, clock });
      emu.setFaults([
        { path: '/v1/models', status: 503, times: 2 },
        { path: '/v1/models', status: 429, headers: { 'Retry-After': '30' }, times: 1 },
      ]);
      const started = Date.now();
      const page = await client.models.list();
      const wall = Date.now() - started;
      await client.close();
      expect(page.data.length).toBeGreaterThan(0);
      // 0.5 s and 1 s of backoff (less up to 25 % jitter), then the 30 s the service asked for.
      expect(clock.waits).toHaveLength(3);
      expect(clock.waits[0]).toBeGreaterThanOrEqual(375);
      expect(clock.waits[0]).toBeLessThanOrEqual(500);
      expect(clock.waits[1]).toBeGreaterThanOrEqual(750);
      expect(clock.waits[1]).toBeLessThanOrEqual(1000);
      expect(clock.waits[2]).toBe(30_000);
      // 31 s of waits were never spent: only the requests' own time passed.
      expect(wall).toBeLessThan(clock.waits.reduce((sum, ms) => sum + ms, 0));
    });

    it('should read a Retry-After date against the clock it was given', async () => {
      const clock = recordingClock();
      const client = new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey, maxRetries: 1, clock });
      const at = new Date(clock.now() + 7_000).toUTCString();
      emu.setFaults([{ path: '/v1/models', status: 503, headers: { 'Retry-After': at }, times: 1 }]);
      await client.models.list();
      await client.close();
      expect(clock.waits).toEqual([7_000]);
    });
  });

  describe('when the system clock sleeps', () => {
    it('should stop the wait at once when the signal aborts', async () => {
      const controller = new AbortController();
      const waiting = systemClock.sleep(60_000, controller.signal);
      controller.abort(new Error('stop'));
      await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });

  describe('when the clock option is not a clock', () => {
    it('should refuse it naming the field, before any request', () => {
      const before = emu.requests().length;
      const error = (() => {
        try {
          new SvcClient({
            baseURL: emu.baseURL,
            apiKey: emu.apiKey,
            clock: { now: Date.now } as unknown as Clock,
          });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).message).toContain('clock');
      expect(emu.requests()).toHaveLength(before);
    });
  });
});
