import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';

let child: ChildProcess | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const started of children) if (started.exitCode === null) started.kill('SIGKILL');
});
const emulatorDir = mkdtempSync(join(tmpdir(), 'svc-serve-emulator-'));
afterAll(() => rmSync(emulatorDir, { recursive: true, force: true }));
const redisUp = await serviceAvailable('redis');

/** Starts `svc-agents serve` from the sources with no service configured; resolves with its JSON line. */
async function serve(args: string[]): Promise<{ url: string; emulated: boolean }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_AGENTS_EMULATOR_DIR: emulatorDir };
  delete env.SVC_API_KEY;
  delete env.SVC_BASE_URL;
  delete env.SVC_REDIS_URL;
  delete env.SVC_POSTGRES_URL;
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--json', ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  // --json prints one (pretty) JSON document once the server listens.
  let out = '';
  for await (const chunk of child.stdout!) {
    out += chunk;
    try {
      return JSON.parse(out) as { url: string; emulated: boolean };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`serve exited before printing its address: ${out}`);
}

describe('svc-agents serve', () => {
  describe('when started with a user agent module and no service configured', () => {
    it('should serve the page and the chat API on 127.0.0.1 with the embedded emulator, and stop on SIGINT', async () => {
      const { url, emulated } = await serve([
        '--agent',
        'test/cli/support/serve-agent.ts',
        '--allow-origin',
        'http://localhost:5173',
      ]);
      expect(emulated).toBe(true);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = await (await fetch(url)).text();
      expect(page).toContain('agent test/cli/support/serve-agent.ts on the embedded emulator');
      expect(page).toContain('<label for="prompt"');
      const script = await fetch(`${url}/app.js`);
      expect(script.headers.get('content-type')).toContain('javascript');
      const events = await (
        await fetch(`${url}/api/chat`, { method: 'POST', body: JSON.stringify({ message: 'Hello' }) })
      ).text();
      expect(events).toContain('"type":"finish"');
      // Only its own page may drive it: another site's POST, or a non-loopback Host (DNS rebinding), is refused.
      const foreign = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { origin: 'http://evil.example' },
        body: JSON.stringify({ message: 'Hello' }),
      });
      expect(foreign.status).toBe(403);
      // A dev server's page behind a proxy that rewrites Host is let through when its origin is allowed.
      const proxied = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { origin: 'http://localhost:5173' },
        body: JSON.stringify({ message: 'Hello' }),
      });
      expect(proxied.status).toBe(200);
      await proxied.text();
      const { request } = await import('undici');
      const rebound = await request(url, { headers: { host: 'evil.example:8787' } });
      expect(rebound.statusCode).toBe(403);
      await rebound.body.text();
      child!.kill('SIGINT');
      const [code] = (await once(child!, 'exit')) as [number | null];
      expect(code).toBe(0);
    }, 30_000);
  });

  describe('when --allow-origin is not an origin', () => {
    it('should fail with a usage error naming --allow-origin', async () => {
      child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--allow-origin', 'http://localhost:5173/app'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(2);
      expect(stderr).toContain('--allow-origin: "http://localhost:5173/app" must be an origin');
    }, 30_000);
  });

  describe('when the port is not a number', () => {
    it('should fail with a usage error naming --port', async () => {
      child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', 'abc'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(2);
      expect(stderr).toContain('--port');
    }, 30_000);
  });

  describe('when two serve processes share one Redis', () => {
    it.skipIf(!redisUp)(
      'should continue on the second a conversation started on the first',
      async () => {
        const namespace = uniqueNamespace('serve');
        const flags = [
          '--agent',
          'test/cli/support/serve-agent.ts',
          '--redis',
          REDIS_URL,
          '--namespace',
          namespace,
        ];
        try {
          const [a, b] = [await serve(flags), await serve(flags)];
          const post = (url: string, message: string) =>
            fetch(`${url}/api/chat`, {
              method: 'POST',
              body: JSON.stringify({ message, sessionId: 'shared-1' }),
            }).then((response) => response.text());
          expect(await post(a.url, 'Hello')).toContain('"type":"finish"');
          const seen = (await (await fetch(`${b.url}/api/sessions/shared-1`)).json()) as {
            messages: unknown[];
          };
          expect(seen.messages).toHaveLength(2);
          expect(await post(b.url, 'And then?')).toContain('"type":"finish"');
          const after = (await (await fetch(`${a.url}/api/sessions/shared-1`)).json()) as {
            messages: Array<{ role: string }>;
          };
          expect(after.messages.map((message) => message.role)).toEqual([
            'user',
            'assistant',
            'user',
            'assistant',
          ]);
        } finally {
          const redis = new Redis(REDIS_URL);
          const keys = await redis.keys(`${namespace}:*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        }
      },
      60_000,
    );
  });

  describe('when --namespace comes without a store', () => {
    it('should fail with a usage error asking for --redis or --postgres', async () => {
      const env = { ...process.env };
      delete env.SVC_REDIS_URL;
      delete env.SVC_POSTGRES_URL;
      child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--namespace', 'x'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(2);
      expect(stderr).toContain('--redis');
    }, 30_000);
  });
});
