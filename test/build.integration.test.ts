import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

// The published package is dist/: prove the build emits entry points with types, and that they run.
describe('npm run build', () => {
  describe('when the package is built', () => {
    it('should emit the main, emulator and CLI entries with type declarations that work from dist', async () => {
      await run('npm', ['run', 'build'], { cwd: process.cwd() });
      for (const file of [
        'index.js',
        'index.d.ts',
        'emulator/index.js',
        'emulator/index.d.ts',
        'web/index.js',
        'web/index.d.ts',
        'browser-client/index.js',
        'browser-client/index.d.ts',
        'mcp/index.js',
        'mcp/index.d.ts',
        'cli/main.js',
        'telemetry/index.js',
        'telemetry/index.d.ts',
      ]) {
        expect(existsSync(`dist/${file}`), file).toBe(true);
      }
      const script = `
        const m = await import('./dist/index.js');
        const { startEmulator } = await import('./dist/emulator/index.js');
        const emu = await startEmulator({ port: 0 });
        const agent = new m.Agent({ client: new m.SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL }), model: 'svc-3.5-flash' });
        const result = await agent.run('Say hello');
        console.log(JSON.stringify({ text: result.text.length > 0, requests: emu.requests().length }));
        await emu.close();`;
      const { stdout } = await run('node', ['--input-type=module', '-e', script]);
      expect(JSON.parse(stdout)).toEqual({ text: true, requests: 1 });
      const version = await run('node', ['dist/cli/main.js', '--version']);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      // The MCP SDK is an optional peer: neither the main entry nor the CLI loads it unless MCP is used.
      const loads = join(await mkdtemp(join(tmpdir(), 'svc-build-')), 'loads.txt');
      const recorder = fileURLToPath(new URL('./helpers/record-module-loads.mjs', import.meta.url));
      const env = { ...process.env, RECORD_MODULE_LOADS_FILE: loads };
      await run(
        'node',
        ['--import', recorder, '--input-type=module', '-e', "await import('./dist/index.js')"],
        { env },
      );
      await run('node', ['--import', recorder, 'dist/cli/main.js', '--help'], { env });
      const loaded = await readFile(loads, 'utf8');
      expect(loaded).toContain('/dist/cli/main.js');
      expect(loaded).not.toContain('@modelcontextprotocol');
      const mcp = await run('node', [
        '--input-type=module',
        '-e',
        "const m = await import('./dist/mcp/index.js'); console.log(typeof m.connectMcpServer)",
      ]);
      expect(mcp.stdout.trim()).toBe('function');
    }, 120_000);
  });
});
