import path from 'node:path';
import type { Tool } from '../../tools/tool.js';
import { CliUsageError } from '../cli-usage-error.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { defaultChatModel } from './utils.js';

/** `svc-agents mcp serve`: svc knowledge-base and file tools (and the user's own) as an MCP server. */
export const mcpServeCommand: CommandSpec = {
  path: ['mcp', 'serve'],
  summary: 'serve knowledge-base and file tools to MCP clients (stdio, or --http)',
  usage: 'mcp serve [--root <dir>] [--read-only] [--tools <module>] [--http [--port <n>]]',
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
    http: {
      type: 'boolean',
      description: 'serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio',
    },
    port: {
      type: 'string',
      valueName: '<n>',
      description: 'port of --http, 0 for any free one (default 3000)',
    },
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model of search_knowledge_base (default ${defaultChatModel})`,
    },
  },
  details:
    'Over stdio only the MCP protocol goes to stdout; notices go to stderr. Without SVC_API_KEY the tools\n' +
    'work on the embedded emulator. Destructive tools carry destructiveHint (MCP clients confirm calls with\n' +
    'their user). A .ts --tools module needs a TypeScript-aware node (tsx).',
  async run(ctx, args) {
    const { values } = args;
    const port = values.port === undefined ? 3000 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new CliUsageError(
        `--port must be an integer from 0 to 65535, got "${String(values.port)}"`,
        'mcp serve',
      );
    }
    if (values.port !== undefined && !values.http)
      throw new CliUsageError('--port needs --http', 'mcp serve');
    const mcp = await loadMcp();
    const userTools: Tool[] = [];
    for (const specifier of String(values.tools ?? '')
      .split(',')
      .filter(Boolean)) {
      userTools.push(...(await mcp.loadToolModule(specifier.trim(), ctx.io.cwd)));
    }
    const { client } = await connect(ctx);
    const root = path.resolve(ctx.io.cwd, (values.root as string | undefined) ?? '.');
    const builtIn = mcp.svcMcpTools(client, {
      root,
      readOnly: values['read-only'] === true,
      model: (values.model as string | undefined) ?? ctx.io.env.SVC_MODEL ?? defaultChatModel,
    });
    const createSession = () =>
      mcp.createMcpToolServer({
        tools: [...builtIn.tools, ...userTools],
        annotations: builtIn.annotations,
        client,
      });
    // Fail on a bad tool set (duplicate names) before any client connects.
    createSession();
    if (!values.http) {
      await mcp.serveMcpStdio(createSession(), ctx.io);
      return 0;
    }
    const endpoint = await mcp.serveMcpHttp({ createSession, port });
    ctx.defer(() => endpoint.close());
    ctx.io.stderr.write(`svc-agents: MCP server listening on ${endpoint.url}\n`);
    await untilSignal();
    return 0;
  },
};

async function loadMcp() {
  try {
    const [tools, server, serve, load] = await Promise.all([
      import('../../mcp/svc-mcp-tools.js'),
      import('../../mcp/create-mcp-tool-server.js'),
      import('../../mcp/serve-mcp.js'),
      import('../../mcp/load-tool-module.js'),
    ]);
    return { ...tools, ...server, ...serve, ...load };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes('@modelcontextprotocol/sdk')) {
      throw new CliUsageError(
        'svc-agents mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk',
      );
    }
    throw error;
  }
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
