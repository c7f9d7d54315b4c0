import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the CLI entry point. */
export const cliMain = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** `--import` URL of tsx, so a child `node` runs TypeScript from any working directory. */
export const tsxImport = import.meta.resolve('tsx');

/** What a finished process left behind. */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runNodeScript}. */
export interface RunOptions {
  /** Extra environment; SVC_* variables of the test runner are removed first. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (an empty string: stdin is empty). */
  input?: string;
  cwd?: string;
  /** Kill the process after this many ms (a hang must fail the test, not stall it). */
  timeoutMs?: number;
}

const stateDirs: string[] = [];
let stateDirCount = 0;
process.on('exit', () => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The environment a child gets: the runner's, without SVC_* and colours, plus `extra`. Unless `extra` names
 * one, the CLI's embedded emulator keeps its state in a folder of its own (removed when the tests end), so
 * no test reads or writes the user's cache and parallel tests never share state.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('SVC_')) delete env[key];
  const dir = join(tmpdir(), `svc-agents-cli-test-${process.pid}-${++stateDirCount}`);
  stateDirs.push(dir);
  env.SVC_AGENTS_EMULATOR_DIR = dir;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs a TypeScript file with node + tsx, stdin piped, and collects its output. */
export function runNodeScript(
  script: string,
  args: string[],
  options: RunOptions = {},
): Promise<ProcessResult> {
  const child = spawn(process.execPath, ['--import', tsxImport, script, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, options);
}

/** Runs `svc-agents <args>` as a user would, from the sources. */
export function runCli(args: string[], options: RunOptions = {}): Promise<ProcessResult> {
  return runNodeScript(cliMain, args, options);
}

function collect(child: ChildProcess, options: RunOptions): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
