import { loadModuleSync } from '../core/load-module.js';

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type SseClientModule = typeof import('@modelcontextprotocol/sdk/client/sse.js');
type StdioClientModule = typeof import('@modelcontextprotocol/sdk/client/stdio.js');
type StreamableClientModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type StdioServerModule = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type StreamableServerModule = typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');

/** The parts of `@modelcontextprotocol/sdk` that svc-agents/mcp uses at run time. */
export interface McpSdk {
  Client: ClientModule['Client'];
  SSEClientTransport: SseClientModule['SSEClientTransport'];
  StdioClientTransport: StdioClientModule['StdioClientTransport'];
  getDefaultEnvironment: StdioClientModule['getDefaultEnvironment'];
  StreamableHTTPClientTransport: StreamableClientModule['StreamableHTTPClientTransport'];
  StreamableHTTPError: StreamableClientModule['StreamableHTTPError'];
  Server: ServerModule['Server'];
  StdioServerTransport: StdioServerModule['StdioServerTransport'];
  StreamableHTTPServerTransport: StreamableServerModule['StreamableHTTPServerTransport'];
  CallToolRequestSchema: TypesModule['CallToolRequestSchema'];
  ListToolsRequestSchema: TypesModule['ListToolsRequestSchema'];
}

let sdk: McpSdk | undefined;

/**
 * The MCP SDK, loaded on first use so that `svc-agents/mcp` imports without it (the SDK is an optional
 * peer); when it is not installed, a `MissingDependencyError` says `npm install @modelcontextprotocol/sdk`.
 */
export function mcpSdk(): McpSdk {
  sdk ??= loadSdk();
  return sdk;
}

function loadSdk(): McpSdk {
  const load = <T>(subpath: string) =>
    loadModuleSync<T>(`@modelcontextprotocol/sdk/${subpath}`, {
      packageName: '@modelcontextprotocol/sdk',
      feature: 'svc-agents/mcp',
    });
  const { Client } = load<ClientModule>('client/index.js');
  const { SSEClientTransport } = load<SseClientModule>('client/sse.js');
  const { StdioClientTransport, getDefaultEnvironment } = load<StdioClientModule>('client/stdio.js');
  const { StreamableHTTPClientTransport, StreamableHTTPError } =
    load<StreamableClientModule>('client/streamableHttp.js');
  const { Server } = load<ServerModule>('server/index.js');
  const { StdioServerTransport } = load<StdioServerModule>('server/stdio.js');
  const { StreamableHTTPServerTransport } = load<StreamableServerModule>('server/streamableHttp.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } = load<TypesModule>('types.js');
  return {
    Client,
    SSEClientTransport,
    StdioClientTransport,
    getDefaultEnvironment,
    StreamableHTTPClientTransport,
    StreamableHTTPError,
    Server,
    StdioServerTransport,
    StreamableHTTPServerTransport,
    CallToolRequestSchema,
    ListToolsRequestSchema,
  };
}
