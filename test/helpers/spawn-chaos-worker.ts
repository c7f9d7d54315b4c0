import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { Emulator } from '../../src/emulator/types.js';
import type { ChaosWorkerConfig } from '../queue/fixtures/chaos-worker.js';
import type { QueueBackend, QueueNamespace } from './queue-backends.js';

const workerScript = join(import.meta.dirname, '../queue/fixtures/chaos-worker.ts');

/** The config a chaos worker process needs to reach one test's queue, store and emulator. */
export function chaosWorkerConfig(
  backend: QueueBackend,
  ns: QueueNamespace,
  emu: Emulator,
  log: string,
  concurrency: number,
): ChaosWorkerConfig {
  return {
    backend: backend.name,
    connection: ns.connection as ChaosWorkerConfig['connection'],
    store: ns.storeOptions,
    queueName: ns.queueName,
    baseURL: emu.baseURL,
    log,
    concurrency,
  };
}

/** Starts a chaos worker process and resolves once it takes jobs. */
export function spawnWorker(config: ChaosWorkerConfig, apiKey: string): Promise<ChildProcess> {
  const child = fork(workerScript, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CHAOS_CONFIG: JSON.stringify(config), CHAOS_API_KEY: apiKey },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
  });
}
