import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorDataDir } from '../../src/cli/emulator-data-dir.js';
import { runCli } from '../helpers/run-cli-process.js';

const TIMEOUT = 120_000;

describe('the embedded emulator of the CLI', () => {
  let cache: string;
  let cwd: string;
  // XDG_CACHE_HOME as a user sets it; no SVC_AGENTS_EMULATOR_DIR, so the default folder is used.
  const env = () => ({ XDG_CACHE_HOME: cache, SVC_AGENTS_EMULATOR_DIR: undefined });
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { ...env(), ...extra }, cwd, input: '', timeoutMs: 60_000 });

  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'svc-agents-cache-'));
    cwd = await mkdtemp(join(tmpdir(), 'svc-agents-cwd-'));
    await writeFile(
      join(cwd, 'policy.md'),
      '# Returns\n\nYou can return any item within 30 days for a refund.\n',
    );
  });
  afterAll(async () => {
    await rm(cache, { recursive: true, force: true });
    await rm(cwd, { recursive: true, force: true });
  });

  describe('when commands run one after another as separate processes', () => {
    it(
      'should keep knowledge bases and files between them, in the per-user cache folder',
      async () => {
        const created = await cli(['kb', 'create', 'docs']);
        expect(created.code, created.stderr).toBe(0);
        const where = join(cache, 'svc-agents', 'emulator');
        expect(created.stderr.trim().split('\n')).toHaveLength(1);
        expect(created.stderr).toContain(`state in ${where}; --fresh to start empty`);

        const listed = await cli(['kb', 'ls']);
        expect(listed.code, listed.stderr).toBe(0);
        expect(listed.stdout).toMatch(/\d+\s+docs\s+text\s+0/);

        const added = await cli(['kb', 'add', 'docs', 'policy.md']);
        expect(added.code, added.stderr).toBe(0);
        expect(added.stdout).toContain('1 file(s) added to docs');

        const asked = await cli(['kb', 'ask', 'docs', 'How many days do I have to return an item?']);
        expect(asked.code, asked.stderr).toBe(0);
        expect(asked.stdout).toMatch(/According to policy\.md: .*30 days/);
      },
      TIMEOUT,
    );
  });

  describe('when --fresh or SVC_AGENTS_FRESH=1 is given', () => {
    it(
      'should start empty and say so',
      async () => {
        await cli(['kb', 'create', 'kept']);
        const fresh = await cli(['kb', 'ls', '--fresh']);
        expect(fresh.code, fresh.stderr).toBe(0);
        expect(fresh.stderr).toContain('emptied');
        expect(fresh.stdout).not.toContain('kept');
        await cli(['kb', 'create', 'again']);
        const byEnv = await cli(['kb', 'ls'], { SVC_AGENTS_FRESH: '1' });
        expect(byEnv.stdout).not.toContain('again');
      },
      TIMEOUT,
    );
  });

  describe('when chat plays its demo on the embedded emulator', () => {
    it(
      'should show several tools, a parallel call, an approval and a knowledge-base answer',
      async () => {
        const { code, stdout, stderr } = await cli(['chat']);
        expect(code, stderr).toBe(0);
        expect(stdout).toContain(
          '→ get_weather({"city":"Paris"})\n  → calculate({"expression":"17/100*250"})',
        );
        expect(stdout).toContain('→ get_weather({"city":"London"})\n  → get_weather({"city":"Tokyo"})');
        expect(stdout).toMatch(/delete_file needs approval: approved/);
        expect(stdout).toMatch(/assistant › delete_file \(file-\w+\): deleted\./);
        expect(stdout).toMatch(
          /assistant › According to handbook\.md: You can return any item within 30 days/,
        );
      },
      TIMEOUT,
    );
  });
});

describe('emulatorDataDir', () => {
  it('should follow each platform’s cache folder, and SVC_AGENTS_EMULATOR_DIR first', () => {
    expect(emulatorDataDir({}, 'linux', '/home/a')).toBe('/home/a/.cache/svc-agents/emulator');
    expect(emulatorDataDir({ XDG_CACHE_HOME: '/c' }, 'linux', '/home/a')).toBe('/c/svc-agents/emulator');
    expect(emulatorDataDir({}, 'darwin', '/Users/a')).toBe('/Users/a/Library/Caches/svc-agents/emulator');
    expect(emulatorDataDir({ SVC_AGENTS_EMULATOR_DIR: '/x' }, 'linux', '/home/a')).toBe('/x');
  });
});
