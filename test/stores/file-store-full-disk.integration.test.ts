import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixtures = join(import.meta.dirname, 'fixtures');

describe('fileStore on a full disk (a child process whose writes to the store fill the disk)', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should fail every short write with a transient StoreWriteError, keep the previous contents and leave no lock or temporary file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-full-disk-'));
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        join(fixtures, 'full-disk.mjs'),
        join(fixtures, 'full-disk-writer.ts'),
        dir,
      ],
      { env: { ...process.env, FULL_DISK_DIR: dir } },
    );
    const seen = JSON.parse(stdout);
    const full = { name: 'StoreWriteError', code: 'ENOSPC', transient: true };
    // The disk took 600 of the record's bytes (a short count), then refused the rest: the old record stays.
    expect(seen.shortRecord).toEqual(full);
    expect(seen.afterShortRecord).toBe(true);
    // Not even the lock's pid fits: the write fails and leaves no empty lock file behind.
    expect(seen.noLock).toEqual(full);
    expect(seen.runFiles).toEqual(['r.json']);
    // Space is back: the same write goes through at once, from the same version.
    expect(seen.retried).toBe(2);
    expect(seen.shortSession).toEqual(full);
    expect(seen.items).toEqual(['first']);
    expect(seen.sessionFiles).toEqual(['s.json']);
    // Half an event line was written and cut off again: the log ends where it did.
    expect(seen.shortLog).toEqual(full);
    expect(seen.eventsAfterShortLog).toEqual([0, 1]);
    expect(seen.events).toEqual([
      { id: 0, data: 'e0' },
      { id: 1, data: 'e1' },
      { id: 2, data: 'e2' },
      { id: 3, data: 'e3' },
    ]);
    expect(seen.shortValue).toEqual(full);
    expect(seen.value).toEqual({ value: undefined, version: 0 });
    expect(seen.valueFiles).toEqual([]);
    expect(seen.eventFiles).toEqual(['log.jsonl']);
  });
});
