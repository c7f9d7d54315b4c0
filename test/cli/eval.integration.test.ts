import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli-process.js';

const weatherEval = fileURLToPath(new URL('../testing/evals/weather-eval.ts', import.meta.url));
const evalFile = (tools: boolean) =>
  `import { weatherEval } from ${JSON.stringify(weatherEval)};\n` +
  `export default weatherEval([{ name: 'prod', tools: ${tools} }]);\n`;

describe('svc-agents eval', { timeout: 120_000 }, () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-eval-cli-'));
    await writeFile(join(dir, 'good.eval.ts'), evalFile(true));
    await writeFile(join(dir, 'worse.eval.ts'), evalFile(false));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  describe('when an eval file runs on the embedded emulator', () => {
    it('should print a table, write result.json and report.html, and exit 0', async () => {
      const run = await runCli(['eval', 'good.eval.ts', '--out', 'baseline'], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/weather: passed/);
      expect(run.stdout).toMatch(/VARIANT\s+INCLUDES\s+TOOL-TRAJECTORY\s+BUDGET\s+LLM-JUDGE\s+PASS/);
      expect(run.stdout).toMatch(/^prod\s+1\.00\s+1\.00\s+1\.00/m);
      const result = JSON.parse(await readFile(join(dir, 'baseline', 'result.json'), 'utf8')) as unknown[];
      expect(result).toHaveLength(1);
      expect(await readFile(join(dir, 'baseline', 'report.html'), 'utf8')).toContain('<svg');
    });
  });

  describe('when a worse version runs against the baseline', () => {
    it('should name what fell and exit 1: the CI gate', async () => {
      expect((await runCli(['eval', 'good.eval.ts', '--out', 'baseline'], { cwd: dir })).code).toBe(0);
      const run = await runCli(['eval', 'worse.eval.ts', '--baseline', 'baseline/result.json'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/weather: failed/);
      expect(run.stdout).toContain('prod: tool-trajectory fell from 1.000 to 0.000');
    });
  });

  describe('when an eval is recorded, then replayed', () => {
    it('should replay offline with the same scores, pointed at an address nothing listens on', async () => {
      const recorded = await runCli(['eval', 'good.eval.ts', '--record', '--out', 'recorded', '--json'], {
        cwd: dir,
      });
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(await readdir(join(dir, 'eval-cassettes'))).toEqual(['weather.json']);
      const replayed = await runCli(['eval', 'good.eval.ts', '--replay', '--out', 'replayed', '--json'], {
        cwd: dir,
        env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'sk-unused' },
      });
      expect(replayed.code, replayed.stderr).toBe(0);
      const scores = (text: string) =>
        (
          JSON.parse(text) as { results: Array<{ variants: Array<{ scores: unknown; passRate: number }> }> }
        ).results.map((r) => r.variants.map((v) => [v.scores, v.passRate]));
      expect(scores(replayed.stdout)).toEqual(scores(recorded.stdout));
    });
  });

  describe('when the example eval runs', () => {
    it('should pass its thresholds on the emulator', async () => {
      const example = fileURLToPath(new URL('../../examples/evals/weather.eval.ts', import.meta.url));
      const run = await runCli(['eval', example, '--out', 'example'], { cwd: dir });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/weather-agent: passed/);
    });
  });

  describe('when the file exports no eval', () => {
    it('should say so and exit 2', async () => {
      await writeFile(join(dir, 'empty.eval.ts'), 'export const nothing = 1;\n');
      const run = await runCli(['eval', 'empty.eval.ts'], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('empty.eval.ts: exports no eval');
    });
  });
});
