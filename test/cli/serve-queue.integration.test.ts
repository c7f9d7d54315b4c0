import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from '../../src/browser-client/parse-sse.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { dropRedisKeys } from '../helpers/queue-backends.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

const redisUp = await serviceAvailable('redis');

/** Starts `svc-agents <args> --json` and resolves with the JSON document it prints once ready. */
async function startCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', tsxImport, cliMain, ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  for await (const chunk of child.stdout!) {
    out += chunk;
    try {
      return { child, ready: JSON.parse(out) as Record<string, unknown> };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`svc-agents ${args[0]} exited before it was ready: ${out}${err}`);
}

describe.skipIf(!redisUp)('svc-agents serve --queue and svc-agents worker', { timeout: 120_000 }, () => {
  let emu: Emulator;
  let namespace: string;
  const children: ChildProcess[] = [];
  let url: string;
  let worker: Record<string, unknown>;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    namespace = uniqueNamespace('cliq');
    // The test's emulator (not the embedded one of each process), so both processes answer from one script.
    const env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
    const backend = ['--redis', REDIS_URL, '--namespace', namespace];
    const [served, started] = await Promise.all([
      startCli(['serve', '--port', '0', '--queue', ...backend], env),
      startCli(['worker', ...backend], env),
    ]);
    children.push(served.child, started.child);
    url = served.ready.url as string;
    worker = started.ready;
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await dropRedisKeys(`${namespace}:*`, `svc-agents:${namespace}*`);
    await emu.close();
  });

  it('should answer a chat of the web server from the worker serving the demo agent as "chat"', async () => {
    emu.script([{ message: { content: 'Hello from a worker.' } }]);
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: 'cli-1', message: 'Hi' }),
    });
    let text = '';
    const types: string[] = [];
    for await (const item of parseSse(response.body!)) {
      if (item.kind !== 'message') continue;
      const event = JSON.parse(item.message.data) as { type: string; text?: string };
      types.push(event.type);
      if (event.type === 'text-delta') text += event.text;
    }

    expect(worker).toMatchObject({ ready: true, agents: ['chat'], queue: namespace });
    expect(text).toBe('Hello from a worker.');
    expect(types.at(-1)).toBe('finish');
    // The demo agent's tools went with the request: the worker ran the demo agent.
    const sent = emu.requests().find((request) => request.path.endsWith('/chat/completions'))?.body as {
      tools?: Array<{ function: { name: string } }>;
    };
    expect(sent.tools?.map((tool) => tool.function.name)).toContain('schedule_reminder');
  });

  it('should refuse --queue without a shared store, before connecting to anything', async () => {
    const result = await runCli(['serve', '--port', '0', '--queue'], { timeoutMs: 60_000 });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--queue needs --redis <url> or --postgres <url>');
  });
});
