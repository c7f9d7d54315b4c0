import type { Agent } from '../../agent/agent.js';
import type { Store } from '../../agent/durable/store.js';
import type { ChatMessage } from '../../api/types/chat.js';
import { importUserModule } from '../../core/import-user-module.js';
import type { RateLimits } from '../../queue/rate-limits.js';
import type { WorkerAgent } from '../../queue/start-worker.js';
import { chatRunObserver } from '../../web/chat-run-observer.js';
import { holdsImage } from '../../web/execute-chat-run.js';
import { DEFAULT_CHAT_AGENT_NAME } from '../../web/queue-chat-runner.js';
import { defaultAudioModel, defaultVisionModel } from '../chat/chat-flags.js';
import { chooseKnowledgeBases } from '../chat/choose-knowledge-bases.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { demoServeAgent } from '../demo/demo-agent.js';
import { KnowledgeUploads } from '../demo/serve/knowledge-uploads.js';
import type { ServeAgentFactory } from '../demo/serve/serve-agent.js';
import { CliUsageError } from '../errors.js';
import { backendOptions, cliConnectTimeoutMs, openRunBackend } from './run-backend.js';
import { defaultChatModel } from './utils.js';

interface WorkerAgents {
  // biome-ignore lint/suspicious/noExplicitAny: any agent
  agents: Record<string, Agent<any, any>> | ((store: Store) => Record<string, WorkerAgent>);
  limits?: RateLimits | undefined;
}

/** `svc-agents worker`: runs queued agent runs until SIGTERM. */
export const workerCommand: CommandSpec = {
  path: ['worker'],
  summary: 'run queued agent runs (BullMQ on Redis or PostgreSQL) until SIGTERM',
  usage:
    'worker [--agents ./agents.js] [--concurrency 8] [--voice <name>] [--redis URL | --postgres URL] [--namespace NAME]',
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
    voice: {
      type: 'string',
      valueName: '<name>',
      description: `the demo agent speaks its answers with this voice, as \`serve --voice\` (default model ${defaultAudioModel})`,
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
    'Without --agents it runs the chats of `serve --queue` on the same --redis/--postgres and --namespace,\n' +
    "with each session's uploaded files and images as `serve` does (--voice: spoken answers):\n" +
    '  svc-agents serve --redis redis://127.0.0.1:6379 --queue   and   svc-agents worker --redis redis://127.0.0.1:6379',
  async run(ctx, args) {
    const modulePath = args.values.agents as string | undefined;
    const concurrency = Number(args.values.concurrency ?? 8);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new CliUsageError('--concurrency: an integer >= 1', 'worker');
    }
    for (const flag of ['model', 'voice'] as const) {
      if (modulePath && args.values[flag] !== undefined) {
        throw new CliUsageError(
          `--${flag} is for the demo agent; your --agents module chooses its own`,
          'worker',
        );
      }
    }
    const loaded = modulePath
      ? await loadAgentsModule(ctx, modulePath)
      : await demoChatAgents(ctx, args.values.model, args.values.voice);
    const backend = await openRunBackend(ctx, args, 'worker');
    const { startWorker } = await import('../../queue/start-worker.js');
    // Chats of `serve --queue` keep their shared state (lease, outcome, paused run) through the worker.
    // The old default namespace's queue too, while jobs wait in it (openRunBackend said so once).
    const locations = [backend, ...(backend.legacy?.queueHasJobs ? [backend.legacy.location] : [])];
    const agentsOf = (store: Store) =>
      typeof loaded.agents === 'function' ? loaded.agents(store) : loaded.agents;
    for (const location of locations) {
      await startWorker({
        observeRun: chatRunObserver({ store: location.store }),
        connection: location.connection,
        store: location.store,
        name: location.queueName,
        connectTimeoutMs: cliConnectTimeoutMs,
        agents: agentsOf(location.store),
        concurrency,
        ...(loaded.limits !== undefined && { limits: loaded.limits }),
        onError: (error) =>
          ctx.io.stderr.write(`worker: ${error instanceof Error ? error.message : String(error)}\n`),
      });
    }
    const names = Object.keys(agentsOf(backend.store)).join(', ');
    if (ctx.json)
      ctx.printJson({ ready: true, agents: names.split(', '), queue: backend.queueName, pid: process.pid });
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
 * tools, instructions and voice (the knowledge bases of the account, as `serve` picks them). It is built
 * per run, as `serve` builds it per turn: the files uploaded in the run's session (their knowledge base
 * id is kept in the shared store by the server that took the upload) and a vision model when the
 * conversation holds an image.
 */
async function demoChatAgents(
  ctx: CommandContext,
  modelFlag: unknown,
  voiceFlag: unknown,
): Promise<WorkerAgents> {
  const { client } = await connect(ctx);
  const voice = voiceFlag as string | undefined;
  const model =
    (modelFlag as string | undefined) ??
    ctx.io.env.SVC_MODEL ??
    (voice ? defaultAudioModel : defaultChatModel);
  const factory = demoServeAgent({
    model,
    root: ctx.io.cwd,
    knowledgeBases: await chooseKnowledgeBases(client, []),
    visionModel: defaultVisionModel,
    // As `serve --voice`: pcm in the stream, relayed through the run's event log to the page.
    ...(voice ? { modelSettings: { modalities: ['text', 'audio'], audio: { voice, format: 'pcm' } } } : {}),
  });
  return { agents: (store) => ({ [DEFAULT_CHAT_AGENT_NAME]: sessionAgent(factory, client, store) }) };
}

/** The worker's agent of a chat run: the serve factory asked with the run's session, as `serve` asks it. */
function sessionAgent(
  factory: ServeAgentFactory,
  client: Awaited<ReturnType<typeof connect>>['client'],
  store: Store,
): WorkerAgent {
  const uploads = new KnowledgeUploads(client, store);
  return async ({ runId, owner }) => {
    const record = await store.getRun(runId);
    // The run's session id is the one the uploads were keyed by (the owner's, with authorize).
    const sessionId = record?.session?.id;
    const state = (record?.state as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
    const history = sessionId ? ((await store.getItems(sessionId)) as ChatMessage[]) : [];
    return factory({
      client,
      sessionId: sessionId ?? runId,
      knowledgeBaseId: sessionId ? await uploads.storeOf(sessionId) : undefined,
      vision: holdsImage([...history, ...state]),
      ...(owner !== undefined && { owner: { userId: owner } }),
    });
  };
}
