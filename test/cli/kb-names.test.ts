import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { memoryIo } from '../helpers/memory-io.js';

describe('svc-agents kb names', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  async function cli(args: string[]) {
    const io = memoryIo({ SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey, NO_COLOR: '1' });
    const code = await runCli(args, io);
    return { code, stdout: io.out(), stderr: io.err() };
  }

  const created = (stdout: string) => /\(([^,]+), text\)/.exec(stdout)?.[1] as string;

  describe('when a second knowledge base gets a name already taken', () => {
    it('should refuse it, naming the first, and create it only with --allow-duplicate', async () => {
      const first = await cli(['kb', 'create', 'team_docs']);
      expect(first.code).toBe(0);
      const creates = () =>
        emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/vector_stores');
      const before = creates().length;

      const again = await cli(['kb', 'create', 'team_docs']);
      expect(again.code).toBe(1);
      expect(again.stderr).toBe(
        `error: a knowledge base named "team_docs" already exists: team_docs (${created(first.stdout)}); choose another name, or allow duplicate names\n`,
      );
      expect(creates()).toHaveLength(before);

      const forced = await cli(['kb', 'create', 'team_docs', '--allow-duplicate']);
      expect(forced.code).toBe(0);
      expect(creates()).toHaveLength(before + 1);
    });
  });

  describe('when a name matches several knowledge bases', () => {
    it('should refuse to guess in kb ask and chat, listing every match', async () => {
      const first = await cli(['kb', 'create', 'shared_docs']);
      const second = await cli(['kb', 'create', 'shared_docs', '--allow-duplicate']);
      const ids = [created(first.stdout), created(second.stdout)];
      for (const args of [
        ['kb', 'ask', 'shared_docs', 'When is the office open?'],
        ['chat', '--kb', 'shared_docs', 'When is the office open?'],
      ]) {
        const result = await cli(args);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^error: the name "shared_docs" matches 2 knowledge bases: .*; use one of the ids\n$/,
        );
        for (const id of ids) expect(result.stderr).toContain(`shared_docs (${id})`);
      }
      // An id picks one of them.
      const byId = await cli(['kb', 'ls', ids[1] as string]);
      expect(byId.code).toBe(0);
    });
  });
});
