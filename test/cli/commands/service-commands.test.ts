import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { runCliInMemory } from '../../helpers/run-cli-in-memory.js';

describe('svc-agents models, files and tokens', () => {
  let emu: Emulator;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-service-'));
    await writeFile(join(dir, 'hours.md'), 'The Lisbon office is open from 10 to 14 on Saturday.\n');
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCliInMemory(emu, args, { cwd: dir });

  describe('models', () => {
    it('should list the models and show one', async () => {
      const listed = await cli(['models', 'ls', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((model) => model.id);
      expect(ids).toContain('svc-3.5-flash');
      const table = await cli(['models', 'ls']);
      expect(table.stdout).toMatch(/^ID\s+OWNED BY\s+CREATED/);
      const one = await cli(['models', 'get', 'svc-3.5-flash', '--json']);
      expect(JSON.parse(one.stdout)).toMatchObject({ id: 'svc-3.5-flash', object: 'model' });
    });

    it('should fail on an unknown model with the service error', async () => {
      const missing = await cli(['models', 'get', 'svc-nope']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('404');
    });
  });

  describe('files', () => {
    it('should upload, wait, list, get, print the content of and delete a file', async () => {
      const uploaded = await cli(['files', 'upload', 'hours.md', '--wait', '--json']);
      expect(uploaded.code, uploaded.stderr).toBe(0);
      const file = JSON.parse(uploaded.stdout) as { id: string; status: string; purpose: string };
      expect(file).toMatchObject({ status: 'success', purpose: 'file-extract' });

      const listed = await cli(['files', 'ls', '--purpose', 'file-extract']);
      expect(listed.stdout).toMatch(new RegExp(`${file.id}\\s+hours\\.md\\s+file-extract`));
      expect((await cli(['files', 'get', file.id])).stdout).toContain(`${file.id}  hours.md  file-extract`);

      const content = await cli(['files', 'content', file.id]);
      expect(content.stdout).toContain('open from 10 to 14 on Saturday');
      const written = await cli(['files', 'content', file.id, '-o', 'hours.txt']);
      expect(written.code).toBe(0);
      expect(await readFile(join(dir, 'hours.txt'), 'utf8')).toContain('Saturday');

      const removed = await cli(['files', 'rm', file.id]);
      expect(removed.stdout).toBe(`deleted ${file.id}\n`);
      const after = JSON.parse((await cli(['files', 'ls', '--json'])).stdout) as Array<{ id: string }>;
      expect(after.map((entry) => entry.id)).not.toContain(file.id);
    });

    it('should refuse an unknown purpose and a missing file before any upload', async () => {
      const before = emu.requests().length;
      const purpose = await cli(['files', 'upload', 'hours.md', '--purpose', 'retrieval']);
      expect(purpose.code).toBe(2);
      expect(purpose.stderr).toContain('--purpose must be one of file-extract, retrieval-text');
      const missing = await cli(['files', 'upload', 'nope.md']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('no such file: nope.md');
      expect(emu.requests().length).toBe(before);
    });
  });

  describe('tokens --format messages', () => {
    it('should count with the Messages endpoint', async () => {
      const before = emu.requests().length;
      const counted = await cli(['tokens', 'hello world, how are you?', '--format', 'messages', '--json']);
      expect(counted.code, counted.stderr).toBe(0);
      const json = JSON.parse(counted.stdout) as { format: string; totalTokens: number };
      expect(json.format).toBe('messages');
      expect(json.totalTokens).toBeGreaterThan(3);
      expect(
        emu
          .requests()
          .slice(before)
          .map((request) => request.path),
      ).toEqual(['/v1/messages/count_tokens']);
    });

    it('should refuse another format', async () => {
      const bad = await cli(['tokens', 'x', '--format', 'xml']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--format must be chat or messages');
    });
  });
});
