import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/stores/file-store.js';

const run = promisify(execFile);
const writer = join(import.meta.dirname, 'fixtures/file-store-writer.ts');
const sharedStateWriter = join(import.meta.dirname, 'fixtures/file-store-shared-state-writer.ts');

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

  describe('when two processes append the same events and count up one value', () => {
    it('should store each event once and lose no increment', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const count = 30;
      await Promise.all(
        [1, 2].map(() => run(process.execPath, ['--import', 'tsx', sharedStateWriter, dir, String(count)])),
      );
      const store = fileStore({ dir });
      const events = await store.readRunEvents('shared-log');
      expect(events).toEqual(Array.from({ length: count }, (_, id) => ({ id, data: `event-${id}` })));
      expect(await store.getValue('counter')).toEqual({ value: String(2 * count), version: 2 * count });
      const left = [...(await readdir(join(dir, 'events'))), ...(await readdir(join(dir, 'values')))];
      expect(left.sort()).toEqual(['counter.json', 'shared-log.jsonl']);
    });
  });

  describe('when a crash left a torn last line in an event log', () => {
    it('should not read it, and cut it off before the next append', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const store = fileStore({ dir, fsync: false });
      await store.appendRunEvents('torn', 0, ['e0', 'e1']);
      const path = join(dir, 'events', 'torn.jsonl');
      await appendFile(path, '{"id":2,"data":"half');
      expect((await store.readRunEvents('torn')).map((event) => event.id)).toEqual([0, 1]);
      await store.appendRunEvents('torn', 2, ['e2']);
      expect(await fileStore({ dir }).readRunEvents('torn')).toEqual([
        { id: 0, data: 'e0' },
        { id: 1, data: 'e1' },
        { id: 2, data: 'e2' },
      ]);
      expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(4);
    });
  });

  describe('when event logs and values expire', () => {
    it('should delete their files on pruneRuns', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const store = fileStore({ dir, fsync: false });
      await store.appendRunEvents('short', 0, ['e0'], { ttlMs: 50 });
      await store.appendRunEvents('long', 0, ['e0'], { ttlMs: 60_000 });
      await store.setValueIf('short', 0, 'v', { ttlMs: 50 });
      await store.setValueIf('kept', 0, 'v');
      // Past the 50 ms ttl, by the wall clock the file store writes expiries in.
      await new Promise((resolve) => setTimeout(resolve, 120));
      await store.pruneRuns();
      expect((await readdir(join(dir, 'events'))).sort()).toEqual(['long.jsonl']);
      expect((await readdir(join(dir, 'values'))).sort()).toEqual(['kept.json']);
    });
  });
});
