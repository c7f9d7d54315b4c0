import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { defaultMemoryStoreOptions, memoryStore } from '../../src/stores/memory-store.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('createChatHandler on the default memory store', () => {
  describe('when more sessions than the store keeps have chatted', () => {
    it('should evict the least recently used ones and keep the rest whole', async () => {
      const store = memoryStore();
      const handler = createChatHandler({
        agent: new Agent({ client: env.client, model: 'svc-3.5-flash' }),
        store,
      });
      const total = defaultMemoryStoreOptions.maxSessions + 100;
      const ids = Array.from({ length: total }, (_, index) => `s${index}`);
      let next = 0;
      const worker = async () => {
        while (next < total) {
          const sessionId = ids[next++]!;
          const response = await handler.fetch(
            new Request('http://chat/api/chat', {
              method: 'POST',
              body: JSON.stringify({ message: 'hi', sessionId }),
            }),
          );
          expect(response.status).toBe(200);
          await response.text();
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const kept = await Promise.all(ids.map(async (id) => (await store.getItems(id)).length));
      expect(kept.filter((count) => count > 0)).toHaveLength(defaultMemoryStoreOptions.maxSessions);
      expect(kept.slice(0, 50).every((count) => count === 0)).toBe(true);
      expect(kept.slice(-50).every((count) => count === 2)).toBe(true);
      // Each run's event log is bounded the same way: the oldest runs' logs are gone.
      const runs = await store.listRuns({ limit: total });
      expect(runs.length).toBeLessThanOrEqual(defaultMemoryStoreOptions.maxRuns);
      await handler.close();
    }, 120_000);
  });
});
