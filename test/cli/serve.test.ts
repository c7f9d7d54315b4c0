import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `svc-agents serve` from the sources with no service configured; resolves with its JSON line. */
async function serve(args: string[]): Promise<{ url: string; emulated: boolean }> {
  const env = { ...process.env };
  delete env.SVC_API_KEY;
  delete env.SVC_BASE_URL;
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--json', ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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
});
