import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('POST /ui regenerate', () => {
  describe('when another run of the chat is in progress (409)', () => {
    it('should answer 409 and keep the last question and answer', async () => {
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const wait = defineTool({
        name: 'wait',
        description: 'Waits for the test',
        parameters: z.object({}),
        execute: async () => {
          await gate;
          return 'waited';
        },
      });
      const store = memoryStore();
      const handler = createChatHandler({
        agent: new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [wait] }),
        store,
        sse: { heartbeatMs: 0 },
      });
      const post = (path: string, body: unknown) =>
        handler.fetch(new Request(`http://chat/api${path}`, { method: 'POST', body: JSON.stringify(body) }));
      const question = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'First question' }] };
      env.emu.script([
        { message: { content: 'First answer' } },
        { message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'wait', arguments: '{}' } }] } },
        { message: { content: 'Second answer' } },
      ]);
      await (await post('/ui', { id: 'chat', messages: [question] })).text();
      // Another route (or tab) starts a run in the same chat; it waits in its tool.
      const running = await post('/chat', { message: 'Meanwhile', sessionId: 'chat' });
      const regenerated = await post('/ui', {
        id: 'chat',
        trigger: 'regenerate-message',
        messages: [question],
      });
      expect(regenerated.status).toBe(409);
      await regenerated.text();
      open();
      await running.text();
      const messages = (await store.getItems('chat')).map((item) => `${item.role}:${item.content ?? ''}`);
      expect(messages.slice(0, 2)).toEqual(['user:First question', 'assistant:First answer']);
      expect(messages.at(-1)).toBe('assistant:Second answer');
      await handler.close();
    });
  });
});
