import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../../agent/agent.js';
import type { RateLimits } from '../../queue/rate-limits.js';
import type { CommandSpec } from '../command.js';
import { CliUsageError } from '../errors.js';
import { backendOptions, openRunBackend } from './run-backend.js';

/** `svc-agents worker`: runs queued agent runs until SIGTERM. */
export const workerCommand: CommandSpec = {
  path: ['worker'],
  summary: 'run queued agent runs (BullMQ on Redis or PostgreSQL) until SIGTERM',
  usage: 'worker --agents ./agents.js [--concurrency 8] [--redis URL | --postgres URL] [--namespace NAME]',
  positionals: { min: 0, max: 0 },
  options: {
    agents: {
      type: 'string',
      valueName: '<module>',
      description:
        'module exporting `agents` (or a default export): { name: agent, ... }, and optionally `limits` (RateLimits)',
    },
    concurrency: {
      type: 'string',
      valueName: '<n>',
      description: 'runs at once in this process (default 8)',
    },
    ...backendOptions,
  },
  details:
    "SIGTERM (or Ctrl-C) stops taking runs and finishes the current ones; a killed worker's runs are resumed by another from their checkpoints. A TypeScript agents module needs a loader: node --import tsx.",
  async run(ctx, args) {
    const modulePath = args.values.agents as string | undefined;
    if (!modulePath) throw new CliUsageError('--agents <module> is required', 'worker');
    const concurrency = Number(args.values.concurrency ?? 8);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new CliUsageError('--concurrency: an integer >= 1', 'worker');
    }
    const loaded = (await import(pathToFileURL(resolve(ctx.io.cwd, modulePath)).href)) as {
      // biome-ignore lint/suspicious/noExplicitAny: any agent
      agents?: Record<string, Agent<any, any>>;
      // biome-ignore lint/suspicious/noExplicitAny: any agent
      default?: Record<string, Agent<any, any>>;
      limits?: RateLimits;
    };
    const agents = loaded.agents ?? loaded.default;
    if (!agents || typeof agents !== 'object' || Object.keys(agents).length === 0) {
      throw new CliUsageError(
        `${modulePath} exports no agents (export const agents = { name: agent })`,
        'worker',
      );
    }
    const backend = await openRunBackend(ctx, args, 'worker');
    const { startWorker } = await import('../../queue/start-worker.js');
    await startWorker({
      connection: backend.connection,
      store: backend.store,
      name: backend.queueName,
      agents,
      concurrency,
      ...(loaded.limits !== undefined && { limits: loaded.limits }),
      onError: (error) =>
        ctx.io.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`),
    });
    const names = Object.keys(agents).join(', ');
    if (ctx.json)
      ctx.printJson({ ready: true, agents: Object.keys(agents), queue: backend.queueName, pid: process.pid });
    else
      ctx.io.stdout.write(`worker ready: agents ${names}, queue ${backend.queueName}, pid ${process.pid}\n`);
    // Serves until SIGTERM/SIGINT, when the worker finishes its runs and exits the process.
    return new Promise<number>(() => {});
  },
};
