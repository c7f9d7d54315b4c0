import type { Agent } from '../../agent/agent.js';
import type { RateLimits } from '../../queue/rate-limits.js';
import { importUserModule } from '../../transport/import-user-module.js';
import { chatRunObserver } from '../../web/chat-run-observer.js';
import { DEFAULT_CHAT_AGENT_NAME } from '../../web/queue-chat-runner.js';
import { chooseKnowledgeBases } from '../chat/choose-knowledge-bases.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { createDemoAgent } from '../demo-agent.js';
import { CliUsageError } from '../errors.js';
import { backendOptions, cliConnectTimeoutMs, openRunBackend } from './run-backend.js';
import { defaultChatModel } from './utils.js';

interface WorkerAgents {
  // biome-ignore lint/suspicious/noExplicitAny: any agent
  agents: Record<string, Agent<any, any>>;
  limits?: RateLimits | undefined;
}

/** `svc-agents worker`: runs queued agent runs until SIGTERM. */
export const workerCommand: CommandSpec = {
  path: ['worker'],
  summary: 'run queued agent runs (BullMQ on Redis or PostgreSQL) until SIGTERM',
  usage: 'worker [--agents ./agents.js] [--concurrency 8] [--redis URL | --postgres URL] [--namespace NAME]',
  positionals: { min: 0, max: 0 },
  options: {
    agents: {
      type: 'string',
      valueName: '<module>',
      description:
        'module exporting `agents` (or a default export): { name: agent, ... }, and optionally `limits` (RateLimits); without it, the demo agent of `serve` as "chat"',
    },
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model of the demo agent, without --agents (default ${defaultChatModel})`,
    },
    concurrency: {
      type: 'string',
      valueName: '<n>',
      description: 'runs at once in this process (default 8)',
    },
    ...backendOptions,
  },
  details:
    "SIGTERM (or Ctrl-C) stops taking runs and finishes the current ones; a killed worker's runs are resumed by another from their checkpoints. A TypeScript agents module is loaded through tsx.\n" +
    'Without --agents it runs the chats of `serve --queue` on the same --redis/--postgres and --namespace:\n' +
    '  svc-agents serve --redis redis://127.0.0.1:6379 --queue   and   svc-agents worker --redis redis://127.0.0.1:6379',
  async run(ctx, args) {
    const modulePath = args.values.agents as string | undefined;
    const concurrency = Number(args.values.concurrency ?? 8);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new CliUsageError('--concurrency: an integer >= 1', 'worker');
    }
    if (modulePath && args.values.model !== undefined) {
      throw new CliUsageError(
        '--model is for the demo agent; your --agents module chooses its own',
        'worker',
      );
    }
    const loaded = modulePath
      ? await loadAgentsModule(ctx, modulePath)
      : await demoChatAgents(ctx, args.values.model);
    const { agents } = loaded;
    const backend = await openRunBackend(ctx, args, 'worker');
    const { startWorker } = await import('../../queue/start-worker.js');
    // Chats of `serve --queue` keep their shared state (lease, outcome, paused run) through the worker.
    // The old default namespace's queue too, while jobs wait in it (openRunBackend said so once).
    const locations = [backend, ...(backend.legacy?.queueHasJobs ? [backend.legacy.location] : [])];
    for (const location of locations) {
      await startWorker({
        observeRun: chatRunObserver({ store: location.store }),
        connection: location.connection,
        store: location.store,
        name: location.queueName,
        connectTimeoutMs: cliConnectTimeoutMs,
        agents,
        concurrency,
        ...(loaded.limits !== undefined && { limits: loaded.limits }),
        onError: (error) =>
          ctx.io.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`),
      });
    }
    const names = Object.keys(agents).join(', ');
    if (ctx.json)
      ctx.printJson({ ready: true, agents: Object.keys(agents), queue: backend.queueName, pid: process.pid });
    else
      ctx.io.stdout.write(`worker ready: agents ${names}, queue ${backend.queueName}, pid ${process.pid}\n`);
    // Serves until SIGTERM/SIGINT, when the worker finishes its runs and exits the process.
    return new Promise<number>(() => {});
  },
};

/** The agents (and limits) a `--agents` module exports. */
async function loadAgentsModule(ctx: CommandContext, modulePath: string): Promise<WorkerAgents> {
  const loaded = (await importUserModule(modulePath, { cwd: ctx.io.cwd, feature: 'worker --agents' })) as {
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
  return { agents, limits: loaded.limits };
}

/**
 * The demo agent `serve` answers with, under the name `serve --queue` enqueues its chats: same model,
 * tools and instructions (the knowledge bases of the account, as `serve` picks them). A chat's uploaded
 * files and attached images need the in-process `serve`: a worker has one agent for every session.
 */
async function demoChatAgents(ctx: CommandContext, modelFlag: unknown): Promise<WorkerAgents> {
  const { client } = await connect(ctx);
  const model = (modelFlag as string | undefined) ?? ctx.io.env.SVC_MODEL ?? defaultChatModel;
  const agent = createDemoAgent({
    client,
    model,
    root: ctx.io.cwd,
    knowledgeBases: await chooseKnowledgeBases(client, []),
  });
  return { agents: { [DEFAULT_CHAT_AGENT_NAME]: agent } };
}
