import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/stores/file-store.js';
import { createTestClock } from '../helpers/test-clock.js';

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
      const clock = createTestClock();
      const store = fileStore({ dir, fsync: false, clock });
      await store.appendRunEvents('short', 0, ['e0'], { ttlMs: 50 });
      await store.appendRunEvents('long', 0, ['e0'], { ttlMs: 60_000 });
      await store.setValueIf('short', 0, 'v', { ttlMs: 50 });
      await store.setValueIf('kept', 0, 'v');
      clock.advance(51);
      await store.pruneRuns();
      expect((await readdir(join(dir, 'events'))).sort()).toEqual(['long.jsonl']);
      expect((await readdir(join(dir, 'values'))).sort()).toEqual(['kept.json']);
    });
  });

  describe('when its clock moves past a ttl', () => {
    it('should read a value and an event log as absent, with no sleep', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const clock = createTestClock();
      const store = fileStore({ dir, fsync: false, clock });
      await store.setValueIf('session-lease', 0, 'owner', { ttlMs: 60_000 });
      await store.appendRunEvents('run', 0, ['e0'], { ttlMs: 60_000 });
      clock.advance(59_000);
      expect(await store.getValue('session-lease')).toEqual({ value: 'owner', version: 1 });
      expect(await store.readRunEvents('run')).toHaveLength(1);
      clock.advance(2_000);
      expect(await store.getValue('session-lease')).toEqual({ value: undefined, version: 0 });
      expect(await store.readRunEvents('run')).toEqual([]);
    });

    it('should prune a finished run once the clock passes its retention', async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
      const clock = createTestClock();
      const store = fileStore({ dir, fsync: false, clock, retentionMs: 60_000 });
      const run = { agentName: 'a', state: {}, interruptions: [] };
      await store.createRun({ id: 'done', status: 'completed', ...run });
      await store.createRun({ id: 'live', status: 'running', ...run });
      clock.advance(59_000);
      expect(await store.pruneRuns()).toEqual({ deleted: 0 });
      clock.advance(2_000);
      expect(await store.pruneRuns()).toEqual({ deleted: 1 });
      expect((await store.listRuns()).map((record) => record.id)).toEqual(['live']);
    });
  });
});
