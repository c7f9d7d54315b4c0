import type { SvcClient } from '../../api/svc-client.js';
import { type EvalDefinition, type EvalVariant, loadEvalData, toTaskOutput } from './define-eval.js';

/** One item of one variant: its scores and what it cost. */
export interface ItemResult {
  index: number;
  scores: Record<string, number>;
  reasons: Record<string, string>;
  passed: boolean;
  tokens: number;
  cost: number;
  latencyMs: number;
  /** Set when the task threw: every score is then 0. */
  error?: string;
}

/** One variant's summary: mean score per scorer, pass rate, tokens, cost and latency percentiles. */
export interface VariantResult {
  variant: string;
  scores: Record<string, number>;
  passRate: number;
  tokens: number;
  cost: number;
  latencyP50: number;
  latencyP95: number;
  items: ItemResult[];
}

/** The result of one eval: every variant, and whether the thresholds held. */
export interface EvalResult {
  name: string;
  variants: VariantResult[];
  /** Threshold misses, `variant: scorer 0.72 < 0.8`; empty when the eval passed. */
  failures: string[];
}

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  client: SvcClient;
  /** Items run at once. @default 4 */
  concurrency?: number;
  /** Called after each item, for a progress bar. */
  onProgress?: (done: number, total: number) => void;
  /** Milliseconds now; tests inject a clock. @default performance.now */
  now?: () => number;
}

/** Runs every item of every variant, scores it and summarises each variant. */
export async function runEval<Item>(
  definition: EvalDefinition<Item>,
  { client, concurrency = 4, onProgress, now = () => performance.now() }: RunEvalOptions,
): Promise<EvalResult> {
  const items = await loadEvalData(definition.data);
  const variants: readonly EvalVariant[] = definition.variants ?? [{ name: 'default' }];
  const jobs = variants.flatMap((variant) => items.map((item, index) => ({ variant, item, index })));
  const results = new Map<string, ItemResult[]>(variants.map((v) => [v.name, []]));
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const result = await runItem(definition, job.item, job.index, job.variant, client, now);
      results.get(job.variant.name)!.push(result);
      onProgress?.(++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, worker));
  const summaries = variants.map((variant) =>
    summarise(
      variant.name,
      results.get(variant.name)!.sort((a, b) => a.index - b.index),
      definition,
    ),
  );
  const failures = summaries.flatMap((summary) =>
    Object.entries(definition.thresholds ?? {}).flatMap(([key, min]) => {
      const value = key === 'pass' ? summary.passRate : (summary.scores[key] ?? 0);
      return value + 1e-9 < min ? [`${summary.variant}: ${key} ${value.toFixed(3)} < ${min}`] : [];
    }),
  );
  return { name: definition.name, variants: summaries, failures };
}

async function runItem<Item>(
  definition: EvalDefinition<Item>,
  item: Item,
  index: number,
  variant: EvalVariant,
  client: SvcClient,
  now: () => number,
): Promise<ItemResult> {
  const started = now();
  const base = { index, scores: {}, reasons: {}, passed: false, tokens: 0, cost: 0 };
  let output: ReturnType<typeof toTaskOutput>;
  try {
    output = toTaskOutput(await definition.task(item, { variant, client }));
  } catch (error) {
    const scores = Object.fromEntries(definition.scorers.map((scorer) => [scorer.name, 0]));
    return {
      ...base,
      scores,
      latencyMs: now() - started,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  const latencyMs = now() - started;
  const scores: Record<string, number> = {};
  const reasons: Record<string, string> = {};
  for (const scorer of definition.scorers) {
    const raw = await scorer.score({ item, output, latencyMs, client });
    const { score, reason } = typeof raw === 'number' ? { score: raw, reason: undefined } : raw;
    scores[scorer.name] = score;
    if (reason) reasons[scorer.name] = reason;
  }
  const itemPass = definition.itemPass ?? 1;
  return {
    ...base,
    scores,
    reasons,
    passed: Object.values(scores).every((score) => score >= itemPass),
    tokens: output.usage?.totalTokens ?? 0,
    cost: output.usage?.cost ?? 0,
    latencyMs,
  };
}

function summarise<Item>(
  variant: string,
  items: ItemResult[],
  definition: EvalDefinition<Item>,
): VariantResult {
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
  const latencies = items.map((item) => item.latencyMs).sort((a, b) => a - b);
  const percentile = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return {
    variant,
    scores: Object.fromEntries(
      definition.scorers.map((s) => [s.name, mean(items.map((item) => item.scores[s.name] ?? 0))]),
    ),
    passRate: mean(items.map((item) => Number(item.passed))),
    tokens: items.reduce((sum, item) => sum + item.tokens, 0),
    cost: items.reduce((sum, item) => sum + item.cost, 0),
    latencyP50: percentile(0.5),
    latencyP95: percentile(0.95),
    items,
  };
}

/**
 * Regressions of `current` against a `baseline` result of the same eval: a variant whose mean score for a
 * scorer (or pass rate) fell by more than `tolerance`. Empty when nothing regressed.
 */
export function compareToBaseline(current: EvalResult, baseline: EvalResult, tolerance = 0.001): string[] {
  const out: string[] = [];
  for (const variant of current.variants) {
    const before = baseline.variants.find((v) => v.variant === variant.variant);
    if (!before) continue;
    const pairs: Array<[string, number, number]> = [
      ...Object.entries(variant.scores).map(([k, v]): [string, number, number] => [
        k,
        v,
        before.scores[k] ?? v,
      ]),
      ['pass', variant.passRate, before.passRate],
    ];
    for (const [key, now, then] of pairs)
      if (now < then - tolerance)
        out.push(`${variant.variant}: ${key} fell from ${then.toFixed(3)} to ${now.toFixed(3)}`);
  }
  return out;
}
