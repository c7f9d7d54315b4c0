import type { Tool } from '../tools/tool.js';
import type { McpToolNaming } from './mcp-tool-name.js';

/** Approval policy of one MCP tool: a constant or a function of its arguments. */
export type McpToolApproval = boolean | ((args: Record<string, unknown>) => boolean | Promise<boolean>);

/** Options every MCP server connection takes, whatever its transport. */
export interface McpCommonOptions extends McpToolNaming {
  /** Label used in errors and notices. @default the command or URL */
  name?: string;
  /** Only these tools (by their name on the server) are offered to the model. */
  allow?: readonly string[];
  /** These tools (by their name on the server) are never offered to the model. */
  deny?: readonly string[];
  /**
   * Whether a human must approve a call: `true` for every tool, `'destructive'` for tools the server does
   * not mark `readOnlyHint` (MCP's default for a tool without hints), or a policy per tool name on the
   * server (tools not listed need none). @default false
   */
  needsApproval?: boolean | 'destructive' | Readonly<Record<string, McpToolApproval>>;
  /** Per-call time limit in milliseconds. @default 60_000 */
  timeoutMs?: number;
  /** Called with the new tool list after the server said `notifications/tools/list_changed`. */
  onToolsChanged?: (tools: readonly Tool[]) => void;
  /** Called when a background refresh of the tool list fails (the previous list stays). @default ignore */
  onError?: (error: Error) => void;
}

/** Connects to an MCP server by spawning it as a child process that speaks over stdin/stdout. */
export interface McpStdioOptions extends McpCommonOptions {
  /** The executable, e.g. `node` or `npx`. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Extra environment variables, added to the SDK's safe default set (PATH, HOME, ...). */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the child. */
  cwd?: string;
  /** What happens to the child's stderr. @default 'inherit' */
  stderr?: 'inherit' | 'pipe' | 'ignore';
}

/** Connects to an MCP server over HTTP. */
export interface McpHttpOptions extends McpCommonOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /** Headers sent with every request (e.g. `authorization`). */
  headers?: Readonly<Record<string, string>>;
  /**
   * `streamable-http`, the legacy `sse` transport, or `auto`: Streamable HTTP, falling back to SSE when
   * the server refuses the Streamable HTTP handshake with a 4xx. @default 'auto'
   */
  transport?: 'auto' | 'streamable-http' | 'sse';
}

/** Options of `connectMcpServer`: a command to spawn (stdio) or a URL (HTTP). */
export type McpServerOptions = McpStdioOptions | McpHttpOptions;
