import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { createDurableTool } from '../helpers/create-durable-tool.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { startTcpFaultProxy } from '../helpers/tcp-fault-proxy.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);
const env = useAgentTestEnv();

const prefix = `${uniqueNamespace('runfaults')}:`;
const schema = uniqueNamespace('runfaults');

const backends = [
  {
    name: 'redisStore',
    skip: !redisUp,
    target: { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) },
    open: (port: number): Store =>
      redisStore({ url: `redis://127.0.0.1:${port}`, prefix, onWarning: () => {} }),
    async cleanup() {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  },
  {
    name: 'postgresStore',
    skip: !postgresUp,
    target: { host: '127.0.0.1', port: Number(new URL(POSTGRES_URL).port || 5432) },
    open: (port: number): Store => {
      const url = new URL(POSTGRES_URL);
      url.port = String(port);
      return postgresStore({ connectionString: url.toString(), schema });
    },
    async cleanup() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`a durable run on ${backend.name} whose checkpoint reply is lost`, () => {
    afterAll(() => backend.cleanup());

    it('should complete with the non-idempotent call run once and its answer recorded once', async () => {
      const proxy = await startTcpFaultProxy(backend.target);
      const store = backend.open(proxy.port);
      try {
        const transfer = createDurableTool('transfer', { execute: () => 'transfer sent' });
        const agent = new Agent({
          client: env.client,
          model: 'svc-3.5-flash',
          store,
          tools: [transfer.tool],
        });
        env.emu.script([toolTurn(['c1', 'transfer']), answer('Sent.')]);
        // The checkpoint after the call finished reaches the store and is applied; its reply never returns.
        const dropped = proxy.dropReplyTo((chunk) => chunk.includes('transfer sent'));
        const result = await agent.run('Send the money', { runId: 'lost-checkpoint' });
        await dropped;

        expect(result).toMatchObject({ status: 'completed', text: 'Sent.' });
        expect(transfer.runs.map((ctx) => ctx.toolCallId)).toEqual(['c1']);
        const record = await store.getRun('lost-checkpoint');
        expect(record).toMatchObject({ status: 'completed', text: 'Sent.' });
        const toolMessages = (record!.state.messages as { role: string; tool_call_id?: string }[]).filter(
          (message) => message.role === 'tool',
        );
        expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['c1']);
      } finally {
        await store.close?.();
        await proxy.close();
      }
    });
  });
}
