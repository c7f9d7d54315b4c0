import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBundle } from '../helpers/build-cli-bundle.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { dropRedisKeys } from '../helpers/queue-backends.js';
import { childEnv } from '../helpers/run-cli-process.js';

// The CLI as users run it (plain node, no TypeScript loader in the process), given a `.ts` module by each
// command that loads one: all three go through the one loader, so all three load it.
const redisUp = await serviceAvailable('redis');
const support = join(import.meta.dirname, 'support');

/** Runs the bundled CLI and resolves with the first stdout or stderr text `ready` matches. */
function startBundled(
  main: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [main, ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`svc-agents ${args[0]} exited with ${code}: ${output}`)));
  });
}

describe('a TypeScript module given to the CLI run by plain node', { timeout: 120_000 }, () => {
  let main: string;
  const children: ChildProcess[] = [];
  const namespace = uniqueNamespace('tsmod');

  beforeAll(async () => {
    main = await buildCliBundle();
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    if (redisUp) await dropRedisKeys(`${namespace}:*`, `svc-agents:${namespace}*`);
  });

  it.skipIf(!redisUp)('should load `worker --agents ./agents.ts`', async () => {
    const { child, match } = await startBundled(
      main,
      [
        'worker',
        '--agents',
        join(support, 'worker-agents.ts'),
        '--redis',
        REDIS_URL,
        '--namespace',
        namespace,
      ],
      /worker ready: agents (\S+)/,
    );
    children.push(child);

    expect(match[1]).toBe('greeter,');
  });

  it('should load `serve --agent ./agent.ts`', async () => {
    const { child, match } = await startBundled(
      main,
      ['serve', '--agent', join(support, 'serve-agent.ts'), '--port', '0'],
      /chat at (http:\/\/\S+)/,
    );
    children.push(child);

    const page = await fetch(match[1]!);
    expect(page.status).toBe(200);
  });

  it('should load `mcp serve --tools ./tools.ts`', async () => {
    const { child, match } = await startBundled(
      main,
      ['mcp', 'serve', '--tools', join(support, 'mcp-tools.ts'), '--http', '--port', '0'],
      /listening on (http:\/\/\S+)/,
    );
    children.push(child);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(match[1]!)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('shout');
    } finally {
      await client.close();
    }
  });
});
