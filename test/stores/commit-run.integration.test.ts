import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecordInput, Store } from '../../src/agent/durable/store.js';
import { RunConflictError } from '../../src/agent/errors.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { fileStore } from '../../src/stores/file-store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { proxiedStoreBackends } from '../helpers/proxied-store-backends.js';

interface CommitCase {
  name: string;
  skip?: boolean;
  open(): Promise<{ store: Store; cleanup(): Promise<void> }>;
}

const cases: CommitCase[] = [
  { name: 'memoryStore', open: async () => ({ store: memoryStore(), cleanup: async () => {} }) },
  {
    name: 'fileStore',
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-commit-'));
      return { store: fileStore({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...proxiedStoreBackends.map((backend) => ({
    name: `${backend.name}Store`,
    skip: !backend.available,
    open: () => backend.open(),
  })),
];

const user = (content: string): ChatMessage => ({ role: 'user', content });

function runInput(status: RunRecordInput['status'], text?: string): RunRecordInput {
  return {
    id: 'run-1',
    agentName: 'support',
    status,
    state: { $schemaVersion: 1, messages: [] },
    interruptions: [],
    ...(text !== undefined && { text }),
  };
}

for (const commitCase of cases) {
  describe.skipIf(commitCase.skip)(`${commitCase.name}.commitRun`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await commitCase.open());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('should write the run and append to its session in one step', async () => {
      await store.addItems('s1', [user('earlier')]);
      const created = await store.createRun(runInput('running'));
      const committed = await store.commitRun!('run-1', created.version, runInput('completed', 'Done.'), {
        sessionId: 's1',
        items: [user('hi'), { role: 'assistant', content: 'Done.' }],
      });
      expect(committed).toMatchObject({ version: 2, status: 'completed', createdAt: created.createdAt });
      expect(await store.getRun('run-1')).toMatchObject({ version: 2, status: 'completed', text: 'Done.' });
      expect(await store.getItems('s1')).toEqual([
        user('earlier'),
        user('hi'),
        { role: 'assistant', content: 'Done.' },
      ]);
    });

    it('should append nothing when the run is no longer at the expected version', async () => {
      const created = await store.createRun(runInput('running'));
      await store.updateRun('run-1', created.version, runInput('running'));
      await expect(
        store.commitRun!('run-1', created.version, runInput('completed', 'Late.'), {
          sessionId: 's1',
          items: [user('late')],
        }),
      ).rejects.toBeInstanceOf(RunConflictError);
      expect(await store.getRun('run-1')).toMatchObject({ version: 2, status: 'running' });
      expect(await store.getItems('s1')).toEqual([]);
    });
  });
}

describe('fileStore.commitRun after a process died inside it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-commit-crash-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // What a process that died between the session write and the record write leaves on disk.
  async function leavePendingCommit(commitId: string) {
    const store = fileStore({ dir });
    await store.addItems('s1', [user('earlier')]);
    await store.createRun(runInput('running'));
    const path = join(dir, 'sessions', 's1.json');
    const session = JSON.parse(await readFile(path, 'utf8'));
    session.items.push(user('orphan'));
    session.pending = { runId: 'run-1', commitId, at: 1, count: 1 };
    await writeFile(path, JSON.stringify(session));
    return store;
  }

  it('should leave out, then drop, items whose run record was never written', async () => {
    const store = await leavePendingCommit('never-written');
    expect(await store.getItems('s1')).toEqual([user('earlier')]);
    await store.addItems('s1', [user('next')]);
    expect(await store.getItems('s1')).toEqual([user('earlier'), user('next')]);
  });

  it('should keep the items when the record was written with that commit', async () => {
    const store = await leavePendingCommit('written');
    const runPath = join(dir, 'runs', 'run-1.json');
    const record = JSON.parse(await readFile(runPath, 'utf8'));
    await writeFile(runPath, JSON.stringify({ ...record, version: 2, commitId: 'written' }));
    expect(await store.getItems('s1')).toEqual([user('earlier'), user('orphan')]);
    expect(await store.getRun('run-1')).not.toHaveProperty('commitId');
  });
});
