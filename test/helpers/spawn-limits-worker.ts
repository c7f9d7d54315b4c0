import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { LimitsWorkerConfig } from '../queue/fixtures/limits-worker.js';

const workerScript = join(import.meta.dirname, '../queue/fixtures/limits-worker.ts');

/** Starts a worker process under fleet-wide limits and resolves once it takes jobs. */
export function spawnLimitsWorker(config: LimitsWorkerConfig, apiKey: string): Promise<ChildProcess> {
  const child = fork(workerScript, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, LIMITS_CONFIG: JSON.stringify(config), LIMITS_API_KEY: apiKey },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
  });
}

/** Stops a worker process and waits until it is gone. */
export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
