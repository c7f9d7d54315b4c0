import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { systemClock } from '../../src/core/clock.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { chatKeys } from '../../src/web/chat-state.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('createChatHandler', () => {
  describe('when a run is quiet for longer than twice keepEndedRunsMs', () => {
    it("should keep the run's event log: every later event, finish included, is relayed", async () => {
      let clock = Date.now();
      const store = memoryStore({ clock: { now: () => clock, sleep: systemClock.sleep } });
      // Each renewal of the run's lease is a moment the executing process is alive and may act.
      const renewals: Array<() => void> = [];
      const setValueIf = store.setValueIf.bind(store);
      store.setValueIf = async (key, version, value, options) => {
        const written = await setValueIf(key, version, value, options);
        if (key.startsWith(chatKeys.run(''))) for (const wake of renewals.splice(0)) wake();
        return written;
      };
      const nextRenewal = () => new Promise<void>((resolve) => renewals.push(resolve));
      const longTask = defineTool({
        name: 'long_task',
        description: 'Takes a long time',
        parameters: z.object({}),
        execute: async () => {
          // 10 s of store time in steps of 0.5 s, the log's time to live being 2 s.
          for (let step = 0; step < 20; step++) {
            clock += 500;
            await nextRenewal();
            await nextRenewal();
          }
          return 'done';
        },
      });
      const handler = createChatHandler({
        agent: new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [longTask] }),
        store,
        keepEndedRunsMs: 1_000,
        leaseMs: 150,
        sse: { heartbeatMs: 0 },
      });
      env.emu.script([
        {
          message: {
            content: 'Starting.',
            tool_calls: [{ id: 'c1', function: { name: 'long_task', arguments: '{}' } }],
          },
        },
        { message: { content: 'All finished.' } },
      ]);
      const response = await handler.fetch(
        new Request('http://chat/api/chat', { method: 'POST', body: JSON.stringify({ message: 'Go' }) }),
      );
      const text = await response.text();
      const types = [...text.matchAll(/"type":"([\w-]+)"/g)].map((match) => match[1]);
      expect(types).toContain('tool-result');
      expect(types.at(-1)).toBe('finish');
      expect(text).toContain('finished.');
      await handler.close();
    }, 60_000);
  });
});
