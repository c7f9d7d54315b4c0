import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/stores/file-store.js';

const run = promisify(execFile);
const writer = join(import.meta.dirname, 'fixtures/file-store-writer.ts');

describe('fileStore', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('when two processes write the same run and session', () => {
    it('should lose no update and never interleave an append', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const store = fileStore({ dir });
      await store.createRun({
        id: 'counter',
        agentName: 'a',
        status: 'running',
        state: { count: 0 },
        interruptions: [],
      });
      const count = 40;
      await Promise.all(
        ['p', 'q'].map((label) =>
          run(process.execPath, ['--import', 'tsx', writer, dir, label, String(count)]),
        ),
      );
      expect((await store.getRun('counter'))?.state.count).toBe(2 * count);
      expect((await store.getRun('counter'))?.version).toBe(2 * count + 1);
      const items = (await store.getItems('shared')).map((item) => item.content as string);
      expect(items).toHaveLength(4 * count);
      for (let i = 0; i < items.length; i += 2) expect(items[i + 1]).toBe(items[i]!.replace(/a$/, 'b'));
      // No temporary or lock file is left behind.
      const left = [...(await readdir(join(dir, 'runs'))), ...(await readdir(join(dir, 'sessions')))];
      expect(left.sort()).toEqual(['counter.json', 'shared.json']);
    });
  });
});
