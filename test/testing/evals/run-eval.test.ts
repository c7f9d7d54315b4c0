import { describe, expect, it } from 'vitest';
import {
  compareToBaseline,
  defineEval,
  type EvalResult,
  exact,
  runEval,
} from '../../../src/testing/index.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';
import { weatherEval } from './weather-eval.js';

const env = useAgentTestEnv();

const VARIANTS = [
  { name: 'flash', tools: true },
  { name: '3.7-flash', tools: true, model: 'svc-3.7-flash' },
  { name: 'no-tools', tools: false },
];

/** What must be equal between two runs: everything but the latencies. */
const scoresOf = (result: EvalResult) =>
  result.variants.map(({ latencyP50: _p50, latencyP95: _p95, items, ...rest }) => ({
    ...rest,
    items: items.map(({ latencyMs: _ms, ...item }) => item),
  }));

describe('runEval', () => {
  describe('when a 20-item eval runs three variants on the emulator', () => {
    it('should give the same scores on every run, and rank the variant without tools last', async () => {
      const progress: number[] = [];
      const first = await runEval(weatherEval(VARIANTS), {
        client: env.client,
        concurrency: 4,
        onProgress: (done) => progress.push(done),
      });
      const second = await runEval(weatherEval(VARIANTS), { client: env.client, concurrency: 2 });
      expect(scoresOf(second)).toEqual(scoresOf(first));
      expect(progress).toHaveLength(60);

      const [flash, other, noTools] = first.variants;
      expect(flash?.items).toHaveLength(20);
      expect(flash?.scores['tool-trajectory']).toBe(1);
      expect(flash?.scores.includes).toBeGreaterThanOrEqual(0.9);
      expect(other?.scores['tool-trajectory']).toBe(1);
      expect(noTools?.scores['tool-trajectory']).toBe(0);
      expect(noTools?.passRate).toBeLessThan(flash!.passRate);
      expect(flash?.tokens).toBeGreaterThan(0);
      // The variant without tools misses its thresholds; the others hold them.
      expect(first.failures.every((failure) => failure.startsWith('no-tools:'))).toBe(true);
      expect(first.failures.length).toBeGreaterThan(0);
    });
  });

  describe('when a variant gets worse than the baseline', () => {
    it('should report the regression, and nothing when it stays the same', async () => {
      const baseline = await runEval(weatherEval([{ name: 'prod', tools: true }]), { client: env.client });
      const same = await runEval(weatherEval([{ name: 'prod', tools: true }]), { client: env.client });
      expect(compareToBaseline(same, baseline)).toEqual([]);
      const worse = await runEval(weatherEval([{ name: 'prod', tools: false }]), { client: env.client });
      const regressions = compareToBaseline(worse, baseline);
      expect(regressions).toContain('prod: tool-trajectory fell from 1.000 to 0.000');
    });
  });

  describe('when the task throws or the definition is wrong', () => {
    it('should score a failed item 0 with its error, and refuse a threshold naming no scorer', async () => {
      const result = await runEval(
        defineEval({
          name: 'throws',
          data: [{ n: 1 }, { n: 2 }],
          task: async (item: { n: number }) => {
            if (item.n === 2) throw new Error('tool backend down');
            return 'one';
          },
          scorers: [exact('one')],
        }),
        { client: env.client },
      );
      expect(result.variants[0]?.items.map((item) => [item.scores.exact, item.error])).toEqual([
        [1, undefined],
        [0, 'tool backend down'],
      ]);
      expect(() =>
        defineEval({
          name: 'x',
          data: [],
          task: async () => '',
          scorers: [exact('a')],
          thresholds: { typo: 1 },
        }),
      ).toThrow('thresholds.typo: no scorer is named typo (scorers: exact)');
    });
  });
});
