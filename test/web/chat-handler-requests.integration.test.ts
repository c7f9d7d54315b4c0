import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { sharedStateBackends } from '../helpers/shared-state-backends.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const redisUp = await serviceAvailable('redis');

let deletions = 0;
const deleteRecord = defineTool({
  name: 'delete_record',
  description: 'Deletes a record',
  parameters: z.object({ id: z.string() }),
  needsApproval: true,
  execute: ({ id }) => {
    deletions++;
    return { deleted: id };
  },
});

function call(id: string, name: string, args: object) {
  return {
    message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
  };
}

function createHandler(store: Store = memoryStore()): ChatHandler {
  const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [deleteRecord] });
  return createChatHandler({ agent, store, sse: { heartbeatMs: 0 } });
}

const post = (url: string, body: unknown) =>
  new Request(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

describe('createChatHandler', () => {
  describe('when a framework hands it a path outside basePath', () => {
    it('should answer 404 without running the agent (a Hono app guarding /api/* with bearerAuth)', async () => {
      const handler = createHandler();
      const app = new Hono();
      app.use('/api/*', bearerAuth({ token: 'secret-token' }));
      app.all('*', (c) => handler.fetch(c.req.raw));
      env.emu.script([{ message: { content: 'ran' } }]);
      const bypass = await app.fetch(post('http://app/xyz/chat', { message: 'hi' }));
      expect(bypass.status).toBe(404);
      await bypass.text();
      const prefixed = await app.fetch(post('http://app/apichat', { message: 'hi' }));
      expect(prefixed.status).toBe(404);
      await prefixed.text();
      expect((await app.fetch(post('http://app/api/chat', { message: 'hi' }))).status).toBe(401);
      expect(chatRequests(env.emu)).toHaveLength(0);
      await handler.close();
    });

    it('should answer 404 from the Node adapter without `next` too', async () => {
      const handler = createHandler();
      const server = createServer((req, res) => void handler.node(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/xyz/chat`, {
        method: 'POST',
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(response.status).toBe(404);
      await response.text();
      expect(chatRequests(env.emu)).toHaveLength(0);
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
  });

  describe('when GETs of unknown ids flood the default memory store', () => {
    it("should keep a user's pending approval: 10,500 GETs evict nothing", async () => {
      deletions = 0;
      const handler = createHandler();
      env.emu.script([call('c1', 'delete_record', { id: 'r1' }), { message: { content: 'Deleted r1.' } }]);
      const paused = await handler.fetch(
        post('http://chat/api/chat', { message: 'Delete r1', sessionId: 'alice' }),
      );
      await paused.text();
      const runId = paused.headers.get('x-run-id')!;
      const paths = ['ui/$/stream', 'ui/$/messages', 'sessions/$', 'runs/$/events'];
      let next = 0;
      const worker = async () => {
        while (next < 10_500) {
          const n = next++;
          const path = paths[n % paths.length]!.replace('$', `flood-${n}`);
          const response = await handler.fetch(new Request(`http://chat/api/${path}`));
          await response.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const approved = await handler.fetch(
        post(`http://chat/api/runs/${runId}/approvals`, {
          decisions: [{ toolCallId: 'c1', approved: true }],
        }),
      );
      expect(approved.status).toBe(200);
      expect(await approved.text()).toContain('Deleted r1.');
      expect(deletions).toBe(1);
      await handler.close();
    }, 120_000);
  });

  describe.skipIf(!redisUp)('when GETs of unknown ids reach a Redis store', () => {
    const prefix = `${uniqueNamespace('gets')}:`;
    const redis = redisUp ? new Redis(REDIS_URL) : undefined;
    const store = redisStore({ url: REDIS_URL, prefix });
    afterAll(async () => {
      await store.close();
      const keys = await redis!.keys(`${prefix}*`);
      if (keys.length > 0) await redis!.del(...keys);
      await redis!.quit();
    });

    it('should write no key at all, whatever ids it is asked for (GETs only read)', async () => {
      const handler = createHandler(store);
      const keys = async () => (await redis!.keys(`${prefix}*`)).sort();
      await store.getValue('warm-up'); // the store writes its layout mark on first use
      const before = await keys();
      for (let n = 0; n < 400; n++) {
        const path = ['ui/$/stream', 'ui/$/messages', 'sessions/$', 'runs/$/events'][n % 4]!;
        const response = await handler.fetch(new Request(`http://chat/api/${path.replace('$', `x${n}`)}`));
        await response.arrayBuffer();
      }
      const added = (await keys()).filter((key) => !before.includes(key));
      expect(added).toEqual([]);
      await handler.close();
    });
  });
});

describe('GET /runs/:runId/events', () => {
  for (const backend of sharedStateBackends.filter((b) => b.name !== 'fileStore')) {
    describe.skipIf(!backend.available)(`on ${backend.name}`, () => {
      let handler: ChatHandler;
      let cleanup: () => Promise<void>;
      let runId = '';
      beforeAll(async () => {
        const opened = await backend.open({});
        cleanup = opened.cleanup;
        handler = createHandler(opened.a);
        env.emu.script([{ message: { content: 'Hello there' } }]);
        const response = await handler.fetch(post('http://chat/api/chat', { message: 'hi' }));
        await response.text();
        runId = response.headers.get('x-run-id')!;
      });
      afterAll(async () => {
        await handler.close();
        await cleanup();
      });
      const events = (lastEventId: string) =>
        handler.fetch(
          new Request(`http://chat/api/runs/${runId}/events`, { headers: { 'last-event-id': lastEventId } }),
        );

      it('should answer 400 to a Last-Event-ID that is not plain digits below 2^31', async () => {
        for (const bad of ['1e3', '0x10', '1e308', '2147483648', '99999999999', '+1', '1.0', '-2']) {
          const response = await events(bad);
          expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
          expect(await response.text()).toContain('Last-Event-ID');
        }
      });

      it('should replay after a valid id, up to 2^31 - 1', async () => {
        const all = await (await events('-1')).text();
        const ids = [...all.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
        expect(ids.length).toBeGreaterThan(2);
        const after = await (await events('1')).text();
        expect([...after.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))).toEqual(ids.slice(2));
        const last = await events('2147483647');
        expect(last.status).toBe(200);
        expect(await last.text()).not.toMatch(/^id: /m);
      });
    });
  }
});
