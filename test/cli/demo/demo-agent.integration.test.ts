import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { RunQueue } from '../../../src/queue/run-queue.js';
import { redisStore } from '../../../src/stores/redis-store.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../../helpers/infra-services.js';
import { dropRedisKeys } from '../../helpers/queue-backends.js';
import { childEnv, cliMain, runCli, tsxImport } from '../../helpers/run-cli-process.js';

// The demo agent answers in `chat`, `serve` and `worker`: each process is asked one question on one
// emulator, and the tools its first model request offered are compared.
const redisUp = await serviceAvailable('redis');

/** Starts `svc-agents <args> --json` and resolves with the JSON document it prints once ready. */
async function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', tsxImport, cliMain, ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += chunk;
    try {
      return { child, ready: JSON.parse(out) as Record<string, unknown> };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`svc-agents ${args[0]} exited before it was ready: ${out}`);
}

describe('the demo agent of chat, serve and worker', { timeout: 120_000 }, () => {
  let emu: Emulator;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  const namespace = uniqueNamespace('demo');

  /** The tool names of the first chat request the emulator got since the last reset. */
  const offeredTools = () => {
    const request = emu.requests().find((item) => item.path.endsWith('/chat/completions'));
    const tools = (request?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools;
    return (tools ?? []).map((tool) => tool.function.name).sort();
  };

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    if (redisUp) await dropRedisKeys(`${namespace}:*`, `svc-agents:${namespace}*`);
    await emu.close();
  });

  it.skipIf(!redisUp)(
    'should offer the same tools in each, and the page should name the approval-gated ones',
    async () => {
      emu.reset();
      emu.script([{ message: { content: 'From chat.' } }]);
      const chat = await runCli(['chat'], { env, input: 'Hello\n' });
      expect(chat.code, chat.stderr).toBe(0);
      const inChat = offeredTools();

      emu.reset();
      emu.script([{ message: { content: 'From serve.' } }]);
      const served = await startCli(['serve', '--port', '0'], env);
      children.push(served.child);
      const url = served.ready.url as string;
      const response = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: 'demo-1', message: 'Hello' }),
      });
      await response.text();
      const inServe = offeredTools();
      const page = await (await fetch(url)).text();

      emu.reset();
      emu.script([{ message: { content: 'From the worker.' } }]);
      const worker = await startCli(['worker', '--redis', REDIS_URL, '--namespace', namespace], env);
      children.push(worker.child);
      const store = redisStore({ url: REDIS_URL, prefix: `${namespace}:` });
      const queue = new RunQueue({ connection: REDIS_URL, store, name: namespace });
      try {
        const runId = await queue.enqueue('chat', 'Hello');
        expect(await queue.waitUntilFinished(runId, { timeout: 60_000 })).toMatchObject({
          status: 'completed',
        });
      } finally {
        await queue.close();
        await store.close();
      }
      const inWorker = offeredTools();

      expect(inChat).toContain('schedule_reminder');
      expect(inChat).toContain('delete_file');
      expect(inChat).toContain('get_weather');
      expect(inServe).toEqual(inChat);
      expect(inWorker).toEqual(inChat);
      for (const gated of ['schedule_reminder', 'delete_file']) expect(page).toContain(gated);
    },
  );
});
