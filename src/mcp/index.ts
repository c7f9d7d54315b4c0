/**
 * MCP for svc-agents (`svc-agents/mcp`): use the tools of any MCP server in an agent, and serve svc
 * tools to other MCP clients. Needs the optional peer dependency `@modelcontextprotocol/sdk`.
 */

export { createMcpToolServer, type McpToolServerOptions } from './create-mcp-tool-server.js';
export { McpConnectionError, McpToolCallError } from './errors.js';
export { type McpCallResult, mcpResultText } from './mcp-result-text.js';
export { connectMcpServer, McpServerConnection } from './mcp-server-connection.js';
export type {
  McpCommonOptions,
  McpHttpOptions,
  McpServerOptions,
  McpStdioOptions,
  McpToolApproval,
} from './mcp-server-options.js';
export type { McpToolNaming } from './mcp-tool-name.js';
export { type McpHttpEndpoint, type McpHttpServeOptions, serveMcpHttp, serveMcpStdio } from './serve-mcp.js';
export { type SvcMcpToolsOptions, svcMcpTools } from './svc-mcp-tools.js';
