import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SvcClient } from '../../src/api/svc-client.js';
import { ChatSession, type SendOptions } from '../../src/cli/chat/chat-session.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { defineTool } from '../../src/tools/define-tool.js';

describe('ChatSession', () => {
  let emu: Emulator;
  let client: SvcClient;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  const quiet: SendOptions = { onEvent: () => {}, decide: async () => false };

  function createSession() {
    let runs = 0;
    const lookup = defineTool({
      name: 'lookup_order',
      description: 'Look up an order.',
      parameters: z.object({ orderId: z.number() }),
      execute: ({ orderId }) => {
        runs++;
        return { orderId, status: 'shipped' };
      },
    });
    const session = new ChatSession({
      client,
      model: 'svc-3.5-flash',
      tools: [lookup],
      instructions: 'Be brief.',
    });
    return { session, runs: () => runs };
  }

  describe('when a message fails after a tool ran', () => {
    it('should resume it with retry() without running the tool again, keeping the conversation', async () => {
      const { session, runs } = createSession();
      await session.send('Hello', quiet);
      emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ function: { name: 'lookup_order', arguments: { orderId: 7 } } }],
          },
        },
        { error: { status: 503 } },
      ]);
      await expect(session.send('Where is order 7?', quiet)).rejects.toMatchObject({ status: 503 });
      expect(runs()).toBe(1);
      expect(session.canRetry).toBe(true);

      const result = await session.retry(quiet);
      expect(runs()).toBe(1);
      expect(result.text).toContain('shipped');
      expect(session.canRetry).toBe(false);
      const users = session.messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(users).toEqual(['Hello', 'Where is order 7?']);
    });
  });

  describe('when nothing failed', () => {
    it('should refuse to retry', async () => {
      const { session } = createSession();
      await expect(session.retry(quiet)).rejects.toThrow('nothing to retry');
    });
  });

  describe('when reset', () => {
    it('should forget the conversation and the failed message', async () => {
      const { session } = createSession();
      await session.send('Hello', quiet);
      emu.script([{ error: { status: 500 } }]);
      await expect(session.send('Again', quiet)).rejects.toMatchObject({ status: 500 });
      session.reset();
      expect(session.messages).toEqual([]);
      expect(session.canRetry).toBe(false);
    });
  });
});
