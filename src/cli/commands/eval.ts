import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { importUserModule } from '../../core/import-user-module.js';
import type { EvalDefinition } from '../../testing/evals/define-eval.js';
import type { EvalResult } from '../../testing/evals/run-eval.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';
import { textTable } from '../ui/text-table.js';

/** `svc-agents eval <files...>`: runs eval files, prints a table per eval, writes the result and a report. */
export const evalCommand: CommandSpec = {
  path: ['eval'],
  summary: 'run eval files (defineEval) and gate on thresholds or a baseline',
  usage: 'eval <files...> [--concurrency N] [--out DIR] [--baseline FILE] [--record | --replay]',
  positionals: { min: 1 },
  options: {
    concurrency: { type: 'string', valueName: '<n>', description: 'items run at once (default 4)' },
    out: {
      type: 'string',
      valueName: '<dir>',
      description: 'where result.json and report.html go (default eval-results)',
    },
    baseline: {
      type: 'string',
      valueName: '<file>',
      description: 'a result.json to compare with: a score that fell fails',
    },
    record: { type: 'boolean', description: 'record every model call to cassettes (see --cassettes)' },
    replay: { type: 'boolean', description: 'answer every model call from the cassettes, offline' },
    cassettes: {
      type: 'string',
      valueName: '<dir>',
      description: 'cassette folder for --record/--replay (default eval-cassettes)',
    },
  },
  details:
    'Each file exports an eval (export default defineEval({...}), from svc-agents/testing); .ts files load as\n' +
    'for serve. Exit code 1 when a threshold is missed or, with --baseline, a score fell; 0 otherwise.\n' +
    'Example: svc-agents eval evals/weather.eval.ts --baseline eval-results/baseline.json',
  async run(ctx, args) {
    const concurrency = args.values.concurrency === undefined ? 4 : Number(args.values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new CliUsageError(`--concurrency: ${String(args.values.concurrency)} must be a positive integer`);
    if (args.values.record && args.values.replay)
      throw new CliUsageError('--record and --replay: choose one');
    const baseline = args.values.baseline ? await readBaseline(ctx, String(args.values.baseline)) : undefined;
    const definitions = await loadEvals(ctx, args.positionals);
    const { runEval, compareToBaseline, renderEvalReport, recordReplay } = await import(
      '../../testing/index.js'
    );
    const results: EvalResult[] = [];
    let failed = false;
    for (const definition of definitions) {
      const mode = args.values.record ? 'record' : args.values.replay ? 'replay' : undefined;
      const recording = mode
        ? await recordReplay({
            dir: resolve(ctx.io.cwd, String(args.values.cassettes ?? 'eval-cassettes')),
            name: definition.name.replace(/[^\w.-]+/g, '-'),
            mode,
          })
        : undefined;
      const { client } = await connect(ctx, recording?.clientOptions);
      const result = await runEval(definition, {
        client,
        concurrency,
        onProgress: (done, total) => progress(ctx, definition.name, done, total),
      });
      await recording?.close();
      results.push(result);
      const regressions = baseline
        ? compareToBaseline(result, baselineFor(baseline, result.name) ?? result)
        : [];
      printSummary(ctx, result, regressions);
      failed ||= result.failures.length > 0 || regressions.length > 0;
    }
    const out = resolve(ctx.io.cwd, String(args.values.out ?? 'eval-results'));
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'result.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(join(out, 'report.html'), renderEvalReport(results));
    if (ctx.json) ctx.printJson({ results, passed: !failed });
    else ctx.io.stdout.write(`\nresult: ${join(out, 'result.json')}\nreport: ${join(out, 'report.html')}\n`);
    return failed ? 1 : 0;
  },
};

async function loadEvals(ctx: CommandContext, files: string[]): Promise<EvalDefinition[]> {
  const out: EvalDefinition[] = [];
  for (const file of files) {
    const module = await importUserModule(file, { cwd: ctx.io.cwd, feature: 'eval' });
    const found = Object.values(module).filter(isEval);
    if (found.length === 0)
      throw new CliUsageError(`${file}: exports no eval (export default defineEval({...}))`);
    out.push(...found);
  }
  return out;
}

function isEval(value: unknown): value is EvalDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EvalDefinition).task === 'function' &&
    Array.isArray((value as EvalDefinition).scorers)
  );
}

async function readBaseline(ctx: CommandContext, file: string): Promise<EvalResult[]> {
  try {
    const parsed = JSON.parse(await readFile(resolve(ctx.io.cwd, file), 'utf8')) as EvalResult[] | EvalResult;
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch (error) {
    throw new CliUsageError(
      `--baseline: ${file} is not a result.json of svc-agents eval (${(error as Error).message})`,
    );
  }
}

function baselineFor(baseline: EvalResult[], name: string): EvalResult | undefined {
  return baseline.find((result) => result.name === name);
}

/** A progress bar on a terminal's stderr; nothing when stderr is not a terminal. */
function progress(ctx: CommandContext, name: string, done: number, total: number): void {
  if (!ctx.io.stderr.isTTY) return;
  const width = 24;
  const filled = Math.round((done / total) * width);
  ctx.io.stderr.write(
    `\r${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`,
  );
}

function printSummary(ctx: CommandContext, result: EvalResult, regressions: string[]): void {
  if (ctx.json) return;
  const scorers = Object.keys(result.variants[0]?.scores ?? {});
  const rows = result.variants.map((v) => [
    v.variant,
    ...scorers.map((s) => (v.scores[s] ?? 0).toFixed(2)),
    `${Math.round(v.passRate * 100)}%`,
    String(v.tokens),
    v.cost.toFixed(4),
    `${Math.round(v.latencyP50)}`,
    `${Math.round(v.latencyP95)}`,
  ]);
  const { stdout } = ctx.io;
  const passed = result.failures.length === 0 && regressions.length === 0;
  stdout.write(`\n${result.name}: ${passed ? ctx.style.out.green('passed') : ctx.style.out.red('failed')}\n`);
  stdout.write(
    `${textTable([['VARIANT', ...scorers.map((s) => s.toUpperCase()), 'PASS', 'TOKENS', 'COST', 'P50 MS', 'P95 MS'], ...rows])}\n`,
  );
  for (const line of [...result.failures, ...regressions])
    stdout.write(`  ${ctx.style.out.red('✗')} ${line}\n`);
}
