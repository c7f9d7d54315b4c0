import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli-process.js';

const TIMEOUT = 90_000;

// A newcomer's first RAG session on a fresh clone: no service configured, so every command runs on the
// embedded emulator, whose state (here in a folder of the test's own) carries from one command to the next.
describe('svc-agents chat with knowledge bases', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-rag-'));
    env = { SVC_AGENTS_EMULATOR_DIR: join(dir, '.emulator') };
    await writeFile(
      join(dir, 'office-hours.md'),
      '# Office hours\n\nThe Lisbon office is open on Saturday from 10:00 to 14:00. It is closed on Sunday.\n\n' +
        'The Porto office is open Monday to Friday, from 9:00 to 18:00.\n',
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli(args, { env, cwd: dir });

  describe('when a newcomer creates a knowledge base, adds a document and asks about it', () => {
    it(
      'should answer from the document and name it as the source',
      async () => {
        const created = await cli(['kb', 'create', 'office_docs']);
        expect(created.code).toBe(0);

        const added = await cli(['kb', 'add', 'office_docs', 'office-hours.md']);
        expect(added.code).toBe(0);

        const chat = await cli([
          'chat',
          '--kb',
          'office_docs',
          'When is the Lisbon office open on Saturday?',
        ]);
        expect(chat.code).toBe(0);
        expect(chat.stdout).toContain('The Lisbon office is open on Saturday from 10:00 to 14:00.');
        expect(chat.stdout).toContain('office-hours.md');
        // The tool activity on stderr shows the search and the cited file.
        expect(chat.stderr).toContain('search_knowledge_base');
        expect(chat.stderr).toContain('source: office-hours.md');

        // Without --kb, the account's only knowledge base is searched.
        const json = await cli(['chat', '--json', 'When is the Lisbon office open on Saturday?']);
        expect(json.code).toBe(0);
        const summary = JSON.parse(json.stdout) as {
          text: string;
          sources: Array<{ title: string; fileId: string }>;
        };
        expect(summary.text).toContain('10:00 to 14:00');
        expect(summary.sources).toEqual([
          expect.objectContaining({
            sourceType: 'document',
            title: 'office-hours.md',
            fileId: expect.stringMatching(/^file-/),
          }),
        ]);
      },
      TIMEOUT * 2,
    );
  });

  describe('when --kb names no knowledge base of the account', () => {
    it(
      'should fail before the chat starts, listing the knowledge bases there are',
      async () => {
        const result = await cli(['chat', '--kb', 'offce_docs', 'When is the Lisbon office open?']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^error: no knowledge base with id or name "offce_docs"; the account has: /m,
        );
        expect(result.stdout).toBe('');
      },
      TIMEOUT,
    );
  });
});
