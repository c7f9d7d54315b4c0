import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModuleSync } from '../../src/core/load-module.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const recorder = fileURLToPath(new URL('../helpers/record-module-loads.mjs', import.meta.url));
const marker = '--- main entry imported';

// Imports the main entry in a fresh process, marks the record, then uses what loads lazily.
const script = `
import { appendFileSync } from 'node:fs';
const m = await import('./src/index.ts');
// Internal, so not on the entry; already loaded with it (RunState keeps one), so the record is unchanged.
const { ToolCallLedger } = await import('./src/tools/tool-call-ledger.ts');
appendFileSync(process.env.RECORD_MODULE_LOADS_FILE, ${JSON.stringify(`${marker}\n`)});
const out = {};
try { await new m.SvcClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 }).chat.completions.create({ model: 'svc-3.5-flash' }); } catch (e) { out.validate = e.constructor.name + ': ' + e.message; }
// A valid request reaches the network (nothing listens on port 9): undici loads here, not at import.
try { await new m.SvcClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 }).chat.completions.create({ model: 'svc-3.5-flash', messages: [{ role: 'user', content: 'hi' }] }); } catch (e) { out.request = e.constructor.name; }
out.ledgerEntries = ToolCallLedger.fromJSON({ $schemaVersion: 1, entries: [] }).entries().length;
const { z } = await import('zod');
const tool = m.defineTool({ name: 't', description: 'd', parameters: z.object({ city: z.string() }), execute: () => 1 });
out.parsed = tool.parseArguments('{"city":1}').ok;
out.builtIns = m.knowledgeBaseTools(new m.SvcClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' })).length;
console.log(JSON.stringify(out));
`;

/** Which recorded module lines name a file of `pkg` in node_modules. */
const linesOf = (lines: string[], pkg: string) =>
  lines.filter((line) => line.includes(`/node_modules/${pkg}/`));

describe('import of the main entry', () => {
  let before: string[];
  let after: string[];
  let output: Record<string, unknown>;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-cold-import-'));
    const file = path.join(dir, 'loads.txt');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', recorder, '--input-type=module', '-e', script],
      { cwd: root, env: { ...process.env, RECORD_MODULE_LOADS_FILE: file } },
    );
    output = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.indexOf(marker);
    expect(at).toBeGreaterThan(0);
    before = lines.slice(0, at);
    after = lines.slice(at + 1);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('when svc-agents is imported in a fresh process', () => {
    it('should record the modules it does load (the recorder sees packages)', () => {
      expect(before.some((line) => line.endsWith('/src/index.ts'))).toBe(true);
      expect(linesOf(before, 'eventemitter3').length).toBeGreaterThan(0);
    });

    it('should not load zod, zod-to-json-schema, p-retry or undici', () => {
      expect(linesOf(before, 'zod')).toEqual([]);
      expect(linesOf(before, 'zod-to-json-schema')).toEqual([]);
      expect(linesOf(before, 'p-retry')).toEqual([]);
      expect(linesOf(before, 'undici')).toEqual([]);
    });
  });

  describe('when the lazily loaded parts are first used', () => {
    it('should load zod then and behave as before', () => {
      expect(linesOf(after, 'zod').length).toBeGreaterThan(0);
      expect(output).toEqual({
        validate: expect.stringMatching(/^RequestValidationError: .*messages: required/s),
        request: 'APIConnectionError',
        ledgerEntries: 0,
        parsed: false,
        builtIns: 7,
      });
    });

    it('should load undici with the first request that reaches the network', () => {
      expect(linesOf(after, 'undici').length).toBeGreaterThan(0);
    });
  });
});

describe('loadModuleSync', () => {
  describe('when the package is also imported as an ES module', () => {
    it('should answer the same module instance (one zod, not a CommonJS copy)', async () => {
      const zod = await import('zod');
      expect(loadModuleSync<typeof zod>('zod').z).toBe(zod.z);
      const core = await import('zod/v4/core');
      expect(loadModuleSync<typeof core>('zod/v4/core').globalRegistry).toBe(core.globalRegistry);
    });
  });
});
