import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { AgentOptionsError } from '../../../src/agent/errors.js';
import { videoPart } from '../../../src/api/parts/video-part.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import { ConfigurationError, RuntimeConditionError, UserError } from '../../../src/core/errors.js';
import { fairPriority } from '../../../src/queue/fair-priority.js';
import { normalizeConnection } from '../../../src/queue/queue-connection.js';
import { RunWaitTimeoutError } from '../../../src/queue/queue-errors.js';
import { normalizeRateLimits } from '../../../src/queue/rate-limits.js';
import { RunQueue } from '../../../src/queue/run-queue.js';
import { memoryStore } from '../../../src/stores/memory-store.js';

const src = join(import.meta.dirname, '../../../src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
}

describe('error families', () => {
  it('should throw no bare SvcError: every error is in one of the four families', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(src)) {
      const text = await readFile(file, 'utf8');
      if (/new SvcError\(/.test(text)) offenders.push(file.slice(src.length + 1));
    }
    expect(offenders).toEqual([]);
  });

  it('should raise bad input in one shape, { field, rule }, as a ConfigurationError', async () => {
    const bad = [
      errorOf(() => normalizeConnection('not a url')),
      errorOf(() => fairPriority(0, 1)),
      errorOf(() => new RunQueue({ connection: 'redis://127.0.0.1:6379', store: undefined as never })),
      errorOf(() => normalizeRateLimits({ windowMs: -1 })),
      errorOf(() => new SvcClient({ apiKey: 'k', baseURL: 'ftp://example.com' })),
      errorOf(
        () =>
          new Agent({
            client: new SvcClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' }),
            model: 'svc-3.5-flash',
            maxTurns: 0,
          }),
      ),
    ];
    for (const error of bad) {
      expect(error).toBeInstanceOf(ConfigurationError);
      const { field, rule, message } = error as ConfigurationError;
      expect(message).toBe(`${field}: ${rule}`);
    }
    expect(bad.at(-1)).toBeInstanceOf(AgentOptionsError);
    // The input errors of the parts helpers and of the stores are of the same shape.
    const part = errorOf(() => videoPart('ftp://example.com/a.mp4'));
    expect(part).toBeInstanceOf(ConfigurationError);
    expect(part).toMatchObject({ field: 'videoPart', helper: 'videoPart' });
    const store = memoryStore();
    const stored = await store.appendRunEvents('r', -1, []).catch((error: unknown) => error);
    expect(stored).toBeInstanceOf(ConfigurationError);
    expect(stored).toMatchObject({ operation: 'appendRunEvents', field: expect.any(String) });
    expect((bad[0] as ConfigurationError).field).toBe('connection');
    const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store: memoryStore() });
    await expect(queue.enqueue('a', 'hi', { tenant: '' })).rejects.toMatchObject({ field: 'tenant' });
    await queue.close();
  });

  it('should make a wait that gave up a runtime condition naming the run', () => {
    const error = new RunWaitTimeoutError({ runId: 'r1', timeoutMs: 5, status: 'running' });
    expect(error).toBeInstanceOf(RuntimeConditionError);
    expect(error).not.toBeInstanceOf(UserError);
    expect(error).toMatchObject({ runId: 'r1', transient: true, status: 'running' });
  });
});
