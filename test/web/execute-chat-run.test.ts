import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { chatKeys } from '../../src/web/chat-state.js';
import { executeChatRun } from '../../src/web/execute-chat-run.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import { withoutSignals } from '../helpers/without-signals.js';

const env = useAgentTestEnv();

function call(id: string, name: string) {
  return { message: { content: '', tool_calls: [{ id, function: { name, arguments: '{}' } }] } };
}

describe('executeChatRun', () => {
  describe('when a stop request is stored but its signal is lost', () => {
    it('should see it on its timer, end as stopped and start no tool after', async () => {
      const store = withoutSignals(memoryStore());
      const started: string[] = [];
      let slowStarted: () => void = () => {};
      const slowIsRunning = new Promise<void>((resolve) => {
        slowStarted = resolve;
      });
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [
          defineTool({
            name: 'slow',
            description: 'Slow',
            parameters: z.object({}),
            execute: async (_args, { signal }) => {
              started.push('slow');
              slowStarted();
              // A tool that would run for 10 s: the test stops the run long before (the timer is cleared on abort).
              await new Promise((resolve) => {
                const timer = setTimeout(resolve, 10_000);
                signal.addEventListener('abort', () => {
                  clearTimeout(timer);
                  resolve(undefined);
                });
              });
              return 'done';
            },
          }),
          defineTool({
            name: 'next',
            description: 'Next',
            parameters: z.object({}),
            execute: () => {
              started.push('next');
              return 'ok';
            },
          }),
        ],
      });
      env.emu.script([call('c1', 'slow'), call('c2', 'next'), { message: { content: 'Done.' } }]);
      await store.setValueIf(chatKeys.run('r1'), 0, JSON.stringify({ sessionId: 's1', agentRunId: 'r1' }));
      await store.setValueIf(chatKeys.active('s1'), 0, 'r1');
      const outcome = executeChatRun({
        agent,
        store,
        stopCheckMs: 20,
        run: { kind: 'start', runId: 'r1', sessionId: 's1', messages: [{ role: 'user', content: 'go' }] },
      });
      await slowIsRunning;
      await store.setValueIf(chatKeys.stop('r1'), 0, 'stop');
      expect(await outcome).toBe('stopped');
      expect(started).toEqual(['slow']);
      const log = await store.readRunEvents('r1');
      expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index));
      expect(JSON.parse(log.at(-1)!.data)).toMatchObject({ type: 'abort' });
      expect((await store.getValue(chatKeys.active('s1'))).value).toBeUndefined();
      expect(JSON.parse((await store.getValue(chatKeys.run('r1'))).value!)).toMatchObject({
        outcome: 'stopped',
      });
      expect(await store.getItems('s1')).toEqual([{ role: 'user', content: 'go' }]);
    });
  });
});
