import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisStore } from '../../src/stores/redis-store.js';
import { eventually } from '../helpers/eventually.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

const redisUp = await serviceAvailable('redis');

describe.skipIf(!redisUp)('redisStore signals', () => {
  const own = new Redis(REDIS_URL);
  afterAll(async () => {
    await own.quit();
  });

  describe('when channels are subscribed while the subscriber connection is still starting (D13)', () => {
    it('should subscribe every one once the connection is ready, and deliver to each', async () => {
      const failures: unknown[] = [];
      for (let round = 0; round < 6; round++) {
        const store = redisStore({ url: REDIS_URL, prefix: `${uniqueNamespace('signals')}:` });
        const received = new Set<string>();
        const subscriptions: Promise<unknown>[] = [];
        // One subscription per turn of the event loop: some land while the connection is connecting,
        // some while ioredis checks it is ready, some after.
        for (let i = 0; i < 30; i++) {
          subscriptions.push(
            store
              .onSignal(`c${i}`, (message) => received.add(message))
              .catch((error) => failures.push(error)),
          );
          await new Promise((resolve) => setImmediate(resolve));
        }
        await Promise.all(subscriptions);
        expect(failures).toEqual([]);
        for (let i = 0; i < 30; i++) await store.signal(`c${i}`, `m${i}`);
        await eventually(async () => received.size === 30);
        await store.close();
      }
    });
  });

  describe('when the store was given your client', () => {
    it('should listen on a duplicate it closes, leaving your client open', async () => {
      const name = uniqueNamespace('signals');
      const store = redisStore({ client: own, prefix: `${name}:` });
      const received: string[] = [];
      await store.onSignal('mine', (message) => received.push(message));
      await store.signal('mine', 'hello');
      await eventually(async () => received.length === 1);
      expect(received).toEqual(['hello']);
      // One subscriber (the duplicate) on the store's channel name, under its prefix.
      expect(await own.pubsub('NUMSUB', `${name}:signal:mine`)).toEqual([`${name}:signal:mine`, 1]);
      await store.close();
      expect(own.status).toBe('ready');
      expect(await own.ping()).toBe('PONG');
      await eventually(async () => {
        const numsub = (await own.pubsub('NUMSUB', `${name}:signal:mine`)) as [string, number];
        return numsub[1] === 0;
      });
    });
  });
});
