import path from 'node:path';
import { Writable } from 'node:stream';
import { MissingDependencyError } from '../../core/errors.js';
import type { Tool } from '../../tools/tool.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';
import { defaultChatModel } from './utils.js';

/** `svc-agents mcp serve`: svc knowledge-base and file tools (and the user's own) as an MCP server. */
export const mcpServeCommand: CommandSpec = {
  path: ['mcp', 'serve'],
  summary: 'serve knowledge-base and file tools to MCP clients (stdio, or --http)',
  usage:
    'mcp serve [--root <dir>] [--read-only] [--tools <module>] [--allow-approval-tools] ' +
    '[--http [--port <n>] [--host <addr>] [--token <t>] [--allowed-hosts <list>]]',
  positionals: { min: 0, max: 0 },
  options: {
    root: {
      type: 'string',
      valueName: '<dir>',
      description: 'directory upload_file reads from (default: cwd)',
    },
    'read-only': { type: 'boolean', description: 'leave out every tool that changes or deletes something' },
    tools: {
      type: 'string',
      valueName: '<module>',
      description: 'also serve the defineTool tools this module exports (comma-separate several)',
    },
    'allow-approval-tools': {
      type: 'boolean',
      description: 'run tools that need approval in an agent (refused by default) on the client confirmation',
    },
    http: {
      type: 'boolean',
      description: 'serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio',
    },
    port: {
      type: 'string',
      valueName: '<n>',
      description: 'port of --http, 0 for any free one (default 3000)',
    },
    host: {
      type: 'string',
      valueName: '<addr>',
      description: 'address --http binds (default 127.0.0.1; anything else needs --token)',
    },
    token: {
      type: 'string',
      valueName: '<t>',
      description: 'bearer token every --http request must send (default: SVC_MCP_TOKEN)',
    },
    'allowed-hosts': {
      type: 'string',
      valueName: '<list>',
      description: 'Host values --http accepts besides its own address (name:port, comma-separated)',
    },
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model of search_knowledge_base (default ${defaultChatModel})`,
    },
  },
  details:
    'Over stdio only the MCP protocol goes to stdout; notices, and whatever a --tools module prints, go to\n' +
    'stderr. Without SVC_API_KEY the tools work on the embedded emulator. Destructive tools carry\n' +
    'destructiveHint; tools that need approval in an agent are destructive, left out by --read-only and\n' +
    'refused unless --allow-approval-tools. --http checks Host and Origin (DNS rebinding), closes idle\n' +
    'sessions after 30 minutes, and with --token (or SVC_MCP_TOKEN) requires Authorization: Bearer <token>.\n' +
    'A .ts --tools module is loaded through tsx, as --agent and --agents are.',
  async run(ctx, args) {
    const { values } = args;
    const port = values.port === undefined ? 3000 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new CliUsageError(
        `--port must be an integer from 0 to 65535, got "${String(values.port)}"`,
        'mcp serve',
      );
    }
    for (const flag of ['port', 'host', 'token', 'allowed-hosts'])
      if (values[flag] !== undefined && !values.http)
        throw new CliUsageError(`--${flag} needs --http`, 'mcp serve');
    const host = (values.host as string | undefined) ?? '127.0.0.1';
    const token = (values.token as string | undefined) ?? ctx.io.env.SVC_MCP_TOKEN;
    if (values.http && !isLoopback(host) && !token)
      throw new CliUsageError(`--host ${host} is not loopback: set --token or SVC_MCP_TOKEN`, 'mcp serve');
    const readOnly = values['read-only'] === true;
    const mcp = await loadMcp();
    // Over stdio, stdout carries the protocol only: what a --tools module prints goes to stderr.
    const protocolOut = values.http ? ctx.io.stdout : divertStdout(ctx);
    const loaded: Tool[] = [];
    for (const specifier of String(values.tools ?? '')
      .split(',')
      .filter(Boolean)) {
      loaded.push(...(await mcp.loadToolModule(specifier.trim(), ctx.io.cwd)));
    }
    const userTools = readOnly ? loaded.filter((tool) => tool.needsApproval === false) : loaded;
    const { client } = await connect(ctx);
    const root = path.resolve(ctx.io.cwd, (values.root as string | undefined) ?? '.');
    const builtIn = mcp.svcMcpTools(client, {
      root,
      readOnly,
      model: (values.model as string | undefined) ?? ctx.io.env.SVC_MODEL ?? defaultChatModel,
    });
    const createSession = () =>
      mcp.createMcpToolServer({
        tools: [...builtIn.tools, ...userTools],
        annotations: builtIn.annotations,
        client,
        approvalTools: values['allow-approval-tools'] === true ? 'run' : 'refuse',
      });
    // Fail on a bad tool set (duplicate names) before any client connects.
    createSession();
    if (!values.http) {
      await mcp.serveMcpStdio(createSession(), { stdin: ctx.io.stdin, stdout: protocolOut });
      return 0;
    }
    const allowedHosts = String(values['allowed-hosts'] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const endpoint = await mcp.serveMcpHttp({
      createSession,
      port,
      host,
      allowedHosts,
      ...(token ? { token } : {}),
    });
    ctx.defer(() => endpoint.close());
    ctx.io.stderr.write(`svc-agents: MCP server listening on ${endpoint.url}\n`);
    await untilSignal();
    return 0;
  },
};

async function loadMcp() {
  const [tools, server, serve, load, sdk] = await Promise.all([
    import('../../mcp/svc-mcp-tools.js'),
    import('../../mcp/create-mcp-tool-server.js'),
    import('../../mcp/serve-mcp.js'),
    import('../../mcp/load-tool-module.js'),
    import('../../mcp/mcp-sdk.js'),
  ]);
  try {
    // The MCP modules load without the SDK; ask for it now, so a missing SDK is said before anything starts.
    sdk.mcpSdk();
  } catch (error) {
    if (MissingDependencyError.isInstance(error)) {
      throw new CliUsageError(`svc-agents mcp needs ${error.packageName}: ${error.installCommand}`);
    }
    throw error;
  }
  return { ...tools, ...server, ...serve, ...load };
}

const isLoopback = (host: string) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);

/**
 * Sends whatever else writes to the process's stdout (a --tools module's `console.log`) to stderr, and
 * returns a stream that still writes to the real stdout, for the protocol. Only for the process's own
 * stdout: an embedding caller's stream is left as it is.
 */
function divertStdout(ctx: { io: { stdout: NodeJS.WritableStream }; defer(fn: () => unknown): void }) {
  if (ctx.io.stdout !== process.stdout) return ctx.io.stdout;
  const stdout = process.stdout;
  const write = stdout.write;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, done) {
      (write as (data: Buffer, callback: (error?: Error | null) => void) => boolean).call(
        stdout,
        chunk,
        done,
      );
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  ctx.defer(() => {
    stdout.write = write;
  });
  return protocol;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
