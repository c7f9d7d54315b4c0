import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { fileStore } from '../../src/stores/file-store.js';
import { eventually } from '../helpers/eventually.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

describe('svc-agents inspect', () => {
  let emu: Emulator;
  let dir: string;
  let runId: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'svc-inspect-cli-'));
    const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    const store = fileStore({ dir, fsync: false });
    // A run of the demo agent's name, as `serve` and `worker` store them.
    const result = await new Agent({ name: 'chat', client, model: 'svc-3.5-flash', store }).run(
      'Hello there',
    );
    runId = result.runId;
    await store.close();
    await client.close();
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('when no store is named', () => {
    it('should exit 2 naming the flags', async () => {
      const result = await runCli(['inspect'], { timeoutMs: 30_000 });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--redis');
    });

    it('should refuse a bad port and two stores at once', async () => {
      const port = await runCli(['inspect', '--dir', dir, '--port', 'http'], { timeoutMs: 30_000 });
      expect(port.code).toBe(2);
      expect(port.stderr).toContain('--port: must be 0-65535');
      const both = await runCli(['inspect', '--dir', dir, '--redis', 'redis://127.0.0.1:1'], {
        timeoutMs: 30_000,
      });
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('only one');
    });
  });

  describe('when started with an --agents module', () => {
    it("should serve the module's agents and say why a run of another agent cannot be forked", async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          tsxImport,
          cliMain,
          'inspect',
          '--dir',
          dir,
          '--port',
          '0',
          '--json',
          '--agents',
          'test/cli/support/inspect-agents.ts',
        ],
        {
          env: childEnv({ SVC_API_KEY: emu.apiKey, SVC_BASE_URL: emu.baseURL }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        const ready = await readJson(child.stdout!);
        expect(ready.agents).toEqual(['support']);
        const detail = (await (await fetch(`${ready.url}api/runs/${runId}`)).json()) as {
          actions: { fork: { enabled: boolean; reason?: string } };
        };
        expect(detail.actions.fork).toEqual({
          enabled: false,
          reason: expect.stringContaining('no agent "chat"'),
        });
        child.kill('SIGINT');
        expect((await once(child, 'exit'))[0]).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });

  describe('when started on a fileStore folder', () => {
    it('should serve the page and the runs, fork a demo agent run against --base-url, and stop on SIGINT', async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          tsxImport,
          cliMain,
          'inspect',
          '--dir',
          dir,
          '--port',
          '0',
          '--json',
          '--base-url',
          emu.baseURL,
        ],
        { env: childEnv({ SVC_API_KEY: emu.apiKey }), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        let out = '';
        let ready: { url: string; agents: string[] } | undefined;
        for await (const chunk of child.stdout) {
          out += chunk;
          try {
            ready = JSON.parse(out) as { url: string; agents: string[] };
            break;
          } catch {
            // not complete yet
          }
        }
        expect(ready?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        expect(ready?.agents).toEqual(['chat']);
        const page = await fetch(ready!.url);
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
        const list = (await (await fetch(`${ready!.url}api/runs`)).json()) as { runs: Array<{ id: string }> };
        expect(list.runs.map((run) => run.id)).toEqual([runId]);

        const before = emu.requests().length;
        const fork = await fetch(`${ready!.url}api/runs/${runId}/fork`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ step: 0, instructions: 'Answer in French.' }),
        });
        expect(fork.status).toBe(202);
        const { runId: forkId } = (await fork.json()) as { runId: string };
        await eventually(async () => {
          const detail = (await (await fetch(`${ready!.url}api/runs/${forkId}`)).json()) as {
            record: { status: string; forkedFrom?: unknown };
          };
          return detail.record.status === 'completed';
        }, 15_000);
        const sent = emu.requests().slice(before).at(-1)?.body as {
          messages: Array<{ role: string; content: string }>;
        };
        expect(sent.messages[0]).toEqual({ role: 'system', content: 'Answer in French.' });
        expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Hello there' });

        child.kill('SIGINT');
        const [code] = await once(child, 'exit');
        expect(code).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });
});

/** The one JSON document `--json` prints once the server listens. */
async function readJson(stdout: NodeJS.ReadableStream): Promise<{ url: string; agents: string[] }> {
  let out = '';
  for await (const chunk of stdout) {
    out += chunk;
    try {
      return JSON.parse(out) as { url: string; agents: string[] };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`inspect exited before printing its address: ${out}`);
}
