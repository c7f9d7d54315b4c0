import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../../agent/durable/store.js';
import { importUserModule } from '../../core/import-user-module.js';
import type { InspectorAgent } from '../../web/inspector/inspector-agents.js';
import { DEFAULT_CHAT_AGENT_NAME } from '../../web/queue-chat-runner.js';
import type { CommandContext, CommandSpec, ParsedArgs } from '../command.js';
import { connect } from '../connect.js';
import { createDemoAgent } from '../demo/demo-agent.js';
import { CliUsageError } from '../errors.js';
import { backendOptions, openRunBackend } from './run-backend.js';
import { defaultChatModel } from './utils.js';

/** `svc-agents inspect`: the run inspector page on a store of runs. */
export const inspectCommand: CommandSpec = {
  path: ['inspect'],
  summary: 'browse stored runs: timeline, messages, checkpoints, fork from a step, export a replay recording',
  usage:
    'inspect --dir DIR | --redis URL | --postgres URL [--namespace NAME] [--port 8790] [--agents ./agents.ts] [--base-url URL]',
  positionals: { min: 0, max: 0 },
  options: {
    dir: { type: 'string', valueName: '<dir>', description: 'a fileStore folder to inspect' },
    ...backendOptions,
    port: {
      type: 'string',
      valueName: '<n>',
      description: 'port on 127.0.0.1, 0 for any free one (default 8790)',
    },
    agents: {
      type: 'string',
      valueName: '<file>',
      description:
        'module exporting `agents` (or a default export): { name: agent or (run) => agent }, to fork and export their runs',
    },
    'base-url': {
      type: 'string',
      valueName: '<url>',
      description:
        'the service or a running emulator forks run against (or SVC_BASE_URL; default the embedded emulator)',
    },
  },
  details:
    'The page lists the runs of the store (filter, sort, search, live counts), shows one run as a timeline of\n' +
    'model requests and tool calls, its messages, the state at each step and the raw events, and its session.\n' +
    'Fork starts a new run from any step (with another model or instructions when your agents module exports a\n' +
    'factory) and Export downloads the run as a recording that `svc-agents/testing` replays.\n' +
    'Without --agents, runs of the demo agent ("chat", as `serve` and `worker` store them) can be forked;\n' +
    'other runs are shown and their fork button says why it is disabled. Only 127.0.0.1 is served. Stop with Ctrl-C.\n' +
    'Example: svc-agents inspect --redis redis://127.0.0.1:6379',
  async run(ctx, args) {
    const portText = (args.values.port as string | undefined) ?? '8790';
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65_535) {
      throw new CliUsageError(`--port: must be 0-65535, not "${portText}"`, 'inspect');
    }
    const baseUrl = args.values['base-url'] as string | undefined;
    if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
      throw new CliUsageError(`--base-url: must be an http(s) URL, not "${baseUrl}"`, 'inspect');
    }
    const store = await openStore(ctx, args);
    if (baseUrl !== undefined) ctx.io.env.SVC_BASE_URL = baseUrl;
    const agents = await loadAgents(ctx, args.values.agents as string | undefined);
    const { createInspectorHandler } = await import('../../web/inspector/create-inspector-handler.js');
    const inspector = createInspectorHandler({ store, agents, basePath: '/' });
    ctx.defer(() => inspector.close());
    const server = createServer((req, res) => {
      // Only loopback names: a page elsewhere cannot reach this server through DNS rebinding.
      if (!/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(req.headers.host ?? '')) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('only 127.0.0.1 and localhost are served');
        return;
      }
      void inspector.node(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    ctx.defer(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    if (ctx.json) ctx.printJson({ url, agents: Object.keys(agents) });
    else ctx.io.stdout.write(`svc-agents inspector at ${url} (Ctrl-C stops)\n`);
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    return 0;
  },
};

/** The store named by `--dir`, or `--redis` / `--postgres` (and `--namespace`) as `runs` opens it. */
async function openStore(ctx: CommandContext, args: ParsedArgs): Promise<Store> {
  const dir = args.values.dir as string | undefined;
  if (dir === undefined) return (await openRunBackend(ctx, args, 'inspect')).store;
  if (args.values.redis !== undefined || args.values.postgres !== undefined) {
    throw new CliUsageError('give --dir, --redis or --postgres, only one', 'inspect');
  }
  const { fileStore } = await import('../../stores/file-store.js');
  const { resolve } = await import('node:path');
  const store = fileStore({
    dir: resolve(ctx.io.cwd, dir),
    onWarning: (message) => ctx.io.stderr.write(`warning: ${message}\n`),
  });
  ctx.defer(() => store.close());
  return store;
}

/** The agents of `--agents`, or the demo agent under the name its runs are stored with. */
async function loadAgents(
  ctx: CommandContext,
  modulePath: string | undefined,
): Promise<Record<string, InspectorAgent>> {
  if (modulePath === undefined) {
    const { client } = await connect(ctx);
    const model = ctx.io.env.SVC_MODEL ?? defaultChatModel;
    return {
      // The name `serve` and `worker` store the demo agent's runs under.
      [DEFAULT_CHAT_AGENT_NAME]: ({ changes }) =>
        createDemoAgent({
          client,
          model: changes.model ?? model,
          root: ctx.io.cwd,
          ...(changes.instructions !== undefined && { instructions: changes.instructions }),
        }),
    };
  }
  const loaded = (await importUserModule(modulePath, { cwd: ctx.io.cwd, feature: 'inspect --agents' })) as {
    agents?: Record<string, InspectorAgent>;
    default?: Record<string, InspectorAgent>;
  };
  const agents = loaded.agents ?? loaded.default;
  if (!agents || typeof agents !== 'object' || Object.keys(agents).length === 0) {
    throw new CliUsageError(
      `${modulePath} exports no agents (export const agents = { name: agent })`,
      'inspect',
    );
  }
  return agents;
}
