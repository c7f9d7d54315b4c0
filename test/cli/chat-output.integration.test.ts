import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, serviceAvailable } from '../helpers/infra-services.js';
import { runCli } from '../helpers/run-cli-process.js';

const redisUp = await serviceAvailable('redis');

describe('svc-agents chat output', { timeout: 60_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-chat-output-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  describe('when --json-schema is given and stdout is a file', () => {
    it('should print exactly the JSON document on stdout', async () => {
      const schema = join(dir, 'contact.schema.json');
      await writeFile(
        schema,
        JSON.stringify({
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
          additionalProperties: false,
        }),
      );

      const result = await runCli(['chat', 'Extract the contact: my name is Ann', '--json-schema', schema]);

      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ name: expect.any(String) });
    });
  });

  describe('when a slash command fails in piped chat', () => {
    it('should report it on stderr and go on with the next lines, exiting 1', async () => {
      const result = await runCli(['chat'], { input: 'Hello\n/model svc-router-v1\nHi again\n' });

      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .*svc-router-v1.*plan channel/m);
      expect(result.stderr).toContain('1 of 3 line(s) failed');
      // Both prompts were answered, the one after the failed command too.
      expect(result.stdout.trim().split('\n').filter(Boolean)).toHaveLength(2);
    });
  });
});

describe.skipIf(!redisUp)('svc-agents runs exit codes', { timeout: 60_000 }, () => {
  it('should exit 1, not 2, for a run the store does not hold (a good command line)', async () => {
    const result = await runCli([
      'runs',
      'show',
      'no-such-run',
      '--redis',
      REDIS_URL,
      '--namespace',
      'svc_test_nope',
    ]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No run "no-such-run"');
    expect(result.stderr).not.toContain('--help');
  });
});
