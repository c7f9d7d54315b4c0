import type { Agent } from '../../agent/agent.js';
import { importUserModule } from '../../core/import-user-module.js';
import type { ChatRunner } from '../../web/chat-runner.js';
import { defaultAudioModel, defaultVisionModel } from '../chat/chat-flags.js';
import { chooseKnowledgeBases, knowledgeBaseFlags } from '../chat/choose-knowledge-bases.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { approvalGatedTools, demoAgentTools, demoServeAgent } from '../demo/demo-agent.js';
import type { ServeAgentFactory } from '../demo/serve/serve-agent.js';
import { checkAllowedOrigins, startChatServer } from '../demo/serve/start-chat-server.js';
import { CliUsageError } from '../errors.js';
import { backendOptions, cliConnectTimeoutMs, openRunBackend, type RunBackend } from './run-backend.js';
import { defaultChatModel } from './utils.js';

/** `svc-agents serve`: the one-page web chat for the demo agent or a user's agent module. */
export const serveCommand: CommandSpec = {
  path: ['serve'],
  summary: 'serve a web chat for the demo agent or your agent on 127.0.0.1 (default port 8787)',
  usage:
    'serve [--port 8787] [--agent ./my-agent.ts] [--model <id>] [--kb <name>]... [--voice <name>] [--redis URL | --postgres URL] [--namespace NAME] [--queue] [--allow-origin <origin>]...',
  positionals: { min: 0, max: 0 },
  options: {
    ...backendOptions,
    queue: {
      type: 'boolean',
      description:
        'run the chats on queue workers (`svc-agents worker` on the same --redis/--postgres and --namespace) instead of in this process',
    },
    port: {
      type: 'string',
      valueName: '<n>',
      description: 'port to listen on, 0 for any free one (default 8787)',
    },
    agent: {
      type: 'string',
      valueName: '<file>',
      description:
        'module whose default export is an Agent or ({ client, sessionId, knowledgeBaseId }) => Agent',
    },
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model of the demo agent (default ${defaultChatModel})`,
    },
    kb: {
      type: 'string',
      multiple: true,
      valueName: '<name>',
      description:
        'knowledge base (name or id) the demo agent searches and cites, repeatable (default: all of yours when you have at most 5)',
    },
    voice: {
      type: 'string',
      valueName: '<name>',
      description: `the demo agent speaks its answers with this voice, played in the page (default model ${defaultAudioModel})`,
    },
    'allow-origin': {
      type: 'string',
      multiple: true,
      valueName: '<origin>',
      description:
        'also accept POSTs from pages of this origin, e.g. http://localhost:5173 behind a dev proxy that rewrites Host (repeatable)',
    },
  },
  details:
    'The page streams answers and reasoning, shows tool calls, asks before running tools that need approval,\n' +
    'takes file uploads into a knowledge base of the chat and images attached to the next message (answered\n' +
    `by ${defaultVisionModel}). Stop with Ctrl-C.\n` +
    "Sessions, paused runs and each run's events are kept in memory (lost on restart), or with --redis / --postgres\n" +
    'in that store, shared by every serve process on it: a page reconnects, approves or stops on any of them.\n' +
    'With --queue the answers are computed by workers and this process only relays them; two commands give a\n' +
    'scaled-out chat (the worker serves the demo agent as "chat"; an --agent of yours needs a worker whose --agents\n' +
    'module exports it as `chat`):\n' +
    '  svc-agents serve --redis redis://127.0.0.1:6379 --queue   and   svc-agents worker --redis redis://127.0.0.1:6379',
  async run(ctx, args) {
    const portText = (args.values.port as string | undefined) ?? '8787';
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65_535)
      throw new CliUsageError(`--port: must be 0-65535, not "${portText}"`, 'serve');
    // Checked before anything starts: the workers can only share a Redis or PostgreSQL store.
    const { env: vars } = ctx.io;
    if (
      args.values.queue &&
      !(args.values.redis ?? args.values.postgres ?? vars.SVC_REDIS_URL ?? vars.SVC_POSTGRES_URL)
    ) {
      throw new CliUsageError(
        '--queue needs --redis <url> or --postgres <url>: the workers share that store',
        'serve',
      );
    }
    // With --queue the workers answer: a voice given here would be silently unused.
    if (args.values.queue && args.values.voice !== undefined) {
      throw new CliUsageError(
        '--voice with --queue: the workers speak the answers; give --voice to `svc-agents worker`',
        'serve',
      );
    }
    const allowedOrigins = (args.values['allow-origin'] as string[] | undefined) ?? [];
    try {
      checkAllowedOrigins(allowedOrigins);
    } catch (error) {
      throw new CliUsageError(`--allow-origin: ${(error as Error).message.replace(/^[^:]*: /, '')}`, 'serve');
    }
    const { client, emulated } = await connect(ctx);
    const agentPath = args.values.agent as string | undefined;
    const voice = args.values.voice as string | undefined;
    const model =
      (args.values.model as string | undefined) ??
      ctx.io.env.SVC_MODEL ??
      (voice ? defaultAudioModel : defaultChatModel);
    if (agentPath && knowledgeBaseFlags(args.values.kb).length > 0) {
      throw new CliUsageError('--kb is for the demo agent; your --agent module chooses its own', 'serve');
    }
    const agent = agentPath
      ? await loadAgentModule(agentPath, ctx.io.cwd)
      : demoServeAgent({
          model,
          root: ctx.io.cwd,
          knowledgeBases: await chooseKnowledgeBases(client, knowledgeBaseFlags(args.values.kb)),
          visionModel: defaultVisionModel,
          // The page streams, and a stream carries pcm: the page wraps it in a wav header to play it.
          ...(voice
            ? { modelSettings: { modalities: ['text', 'audio'], audio: { voice, format: 'pcm' } } }
            : {}),
        });
    const { env } = ctx.io;
    const shared =
      args.values.redis ??
      args.values.postgres ??
      args.values.namespace ??
      env.SVC_REDIS_URL ??
      env.SVC_POSTGRES_URL;
    const backend = shared === undefined ? undefined : await openRunBackend(ctx, args, 'serve');
    const runner = backend && args.values.queue ? await queueRunner(ctx, backend) : undefined;
    const server = await startChatServer({
      client,
      agent,
      port,
      allowedOrigins,
      ...(backend && { store: backend.store }),
      ...(runner && { runner }),
      subtitle: `${agentPath ? `agent ${agentPath}` : `demo agent (${model}; asks before it runs ${approvalGatedTools(demoAgentTools(client, ctx.io.cwd)).join(', ')})`}${emulated ? ' on the embedded emulator' : ''}`,
    });
    ctx.defer(() => server.close());
    if (ctx.json) ctx.printJson({ url: server.url, emulated });
    else ctx.io.stdout.write(`svc-agents chat at ${server.url} (Ctrl-C stops)\n`);
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    return 0;
  },
};

/** The runner of `--queue`: each chat's turn enqueued for `svc-agents worker` on the same backend. */
async function queueRunner(ctx: CommandContext, backend: RunBackend): Promise<ChatRunner> {
  const [{ RunQueue }, { queueChatRunner }] = await Promise.all([
    import('../../queue/run-queue.js'),
    import('../../web/queue-chat-runner.js'),
  ]);
  const queue = new RunQueue({
    connection: backend.connection,
    store: backend.store,
    name: backend.queueName,
    connectTimeoutMs: cliConnectTimeoutMs,
  });
  ctx.defer(() => queue.close());
  return queueChatRunner({ queue, store: backend.store });
}

/** Imports a user's agent module (`importUserModule`: TypeScript through tsx when Node cannot load it). */
async function loadAgentModule(path: string, cwd: string): Promise<ServeAgentFactory> {
  const module = await importUserModule(path, { cwd, feature: 'serve --agent' });
  const value = module.default;
  if (value && typeof (value as Agent).stream === 'function') return () => value as Agent<unknown, unknown>;
  if (typeof value === 'function') return value as ServeAgentFactory;
  throw new CliUsageError(
    `--agent: ${path} must export default an Agent or a function returning one`,
    'serve',
  );
}
