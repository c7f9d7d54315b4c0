import { readFile } from 'node:fs/promises';
import type { RunResult } from '../../agent/run-result.js';
import type { SvcClient } from '../../api/svc-client.js';
import { ConfigurationError } from '../../core/errors.js';
import type { Scorer, TaskOutput } from './scorers.js';

/** One variant of an experiment: what changes between the runs of one dataset (model, instructions, tools). */
export interface EvalVariant {
  name: string;
  model?: string;
  instructions?: string;
  /** Anything else the task reads to build its agent. */
  [setting: string]: unknown;
}

/** What a task is given besides the item. */
export interface TaskContext {
  variant: EvalVariant;
  client: SvcClient;
}

/** An eval: a dataset, a task run per item (and variant), scorers, and the scores it must keep. */
export interface EvalDefinition<Item = unknown> {
  name: string;
  /** The items, or a JSONL file of them (one JSON value per line). */
  data: readonly Item[] | string;
  /** Runs one item: an agent's run, or any answer. */
  task: (item: Item, context: TaskContext) => Promise<RunResult | TaskOutput | string>;
  scorers: ReadonlyArray<Scorer<Item>>;
  /**
   * The mean score each scorer must reach (0-1) for the eval to pass, and for `--baseline` the most it may
   * fall; `pass` is the share of items whose every score is at least `itemPass`.
   * @default every scorer 0 (report only)
   */
  thresholds?: Record<string, number>;
  /** An item passes when each of its scores is at least this. @default 1 */
  itemPass?: number;
  /** Variants run side by side on the same data. @default [{ name: 'default' }] */
  variants?: readonly EvalVariant[];
}

/**
 * Declares an eval; checked at once, so a mistake is reported before any item runs.
 *
 * @example
 * export default defineEval({
 *   name: 'weather',
 *   data: [{ input: 'Weather in Paris?', city: 'Paris' }],
 *   task: (item, { client }) => new Agent({ client, model: 'svc-3.5-flash', tools: [weather] }).run(item.input),
 *   scorers: [includes((item) => item.city), toolTrajectory([{ name: 'get_weather' }])],
 *   thresholds: { includes: 0.9 },
 * });
 */
export function defineEval<Item>(definition: EvalDefinition<Item>): EvalDefinition<Item> {
  if (!definition.name) throw new ConfigurationError({ field: 'name', rule: 'an eval needs a name' });
  if (definition.scorers.length === 0)
    throw new ConfigurationError({ field: 'scorers', rule: 'an eval needs at least one scorer' });
  const names = definition.scorers.map((scorer) => scorer.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate)
    throw new ConfigurationError({
      field: 'scorers',
      rule: `two scorers are named ${duplicate}: give one a name`,
    });
  for (const key of Object.keys(definition.thresholds ?? {}))
    if (key !== 'pass' && !names.includes(key))
      throw new ConfigurationError({
        field: `thresholds.${key}`,
        rule: `no scorer is named ${key} (scorers: ${names.join(', ')})`,
      });
  return definition;
}

/** The items of an eval: the array, or the JSONL file read line by line. */
export async function loadEvalData<Item>(data: readonly Item[] | string): Promise<Item[]> {
  if (typeof data !== 'string') return [...data];
  const text = await readFile(data, 'utf8');
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i] as const)
    .filter(([line]) => line !== '')
    .map(([line, i]) => {
      try {
        return JSON.parse(line) as Item;
      } catch {
        throw new ConfigurationError({ field: 'data', rule: `${data}:${i + 1} is not JSON` });
      }
    });
}

/** The task's answer as a scorer reads it. */
export function toTaskOutput(answer: RunResult | TaskOutput | string): TaskOutput {
  if (typeof answer === 'string') return { text: answer };
  if ('steps' in answer && 'status' in answer) {
    const run = answer as RunResult;
    const sources = run.sources.map((source) => source.title);
    return {
      text: run.text,
      output: run.status === 'completed' ? run.output : undefined,
      steps: run.steps,
      usage: run.usage,
      sources,
    };
  }
  return answer as TaskOutput;
}
