import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { SvcClient } from '../api/svc-client.js';
import { createToolSet } from '../tools/create-tool-set.js';
import { executeToolCall } from '../tools/execute-tool-call.js';
import type { Tool } from '../tools/tool.js';
import { mcpSdk } from './mcp-sdk.js';

/** Options of `createMcpToolServer`. */
export interface McpToolServerOptions {
  /** The tools to serve (function tools; arguments are checked by each tool's own schema). */
  tools: readonly Tool[];
  /** MCP annotations per tool name (`readOnlyHint`, `destructiveHint`, ...). */
  annotations?: Readonly<Record<string, ToolAnnotations>>;
  /** Handed to tools as `ctx.client`. */
  client?: SvcClient | undefined;
  /** Server name in the MCP handshake. @default 'svc-agents' */
  name?: string;
  /** Server version in the MCP handshake. @default '0.1.0' */
  version?: string;
  /**
   * What a call of a tool that needs approval (`needsApproval` not `false`) does: MCP has no approval
   * step of ours, so by default it is refused with an `isError` result; `'run'` runs it (the MCP client
   * confirms it with its user, as it does for any `destructiveHint` tool). Such tools are always listed
   * with `destructiveHint: true`. @default 'refuse'
   */
  approvalTools?: 'refuse' | 'run';
}

/**
 * An MCP server (the SDK's low-level `Server`, not yet connected) offering agent tools: `tools/list`
 * sends each tool's JSON Schema as it is, `tools/call` runs the tool like an agent would. Unknown tools,
 * bad arguments, failing tools and timeouts come back as an `isError` result with the same text a model
 * would read, so the server keeps serving. Object results are also sent as `structuredContent`.
 */
export function createMcpToolServer(options: McpToolServerOptions): Server {
  const {
    tools,
    annotations = {},
    client,
    name = 'svc-agents',
    version = '0.1.0',
    approvalTools = 'refuse',
  } = options;
  const { Server, ListToolsRequestSchema, CallToolRequestSchema } = mcpSdk();
  const toolSet = createToolSet(tools);
  const server = new Server({ name, version }, { capabilities: { tools: {} } });
  const listed = tools.map((tool) => {
    const given = annotations[tool.name];
    const hints = needsApproval(tool) ? { ...given, readOnlyHint: false, destructiveHint: true } : given;
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.definition.function.parameters as { type: 'object'; [key: string]: unknown },
      ...(hints ? { annotations: hints } : {}),
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (tool && needsApproval(tool) && approvalTools === 'refuse') {
      const text =
        `Tool ${tool.name} needs approval, which this MCP server cannot ask for, so it was not run. ` +
        'Start the server with --allow-approval-tools (approvalTools: "run") to run it on the client\'s confirmation.';
      return { content: [{ type: 'text', text }], isError: true };
    }
    const outcome = await executeToolCall({
      toolSet,
      call: {
        id: `mcp_${String(extra.requestId)}`,
        type: 'function',
        function: { name: request.params.name, arguments: JSON.stringify(request.params.arguments ?? {}) },
      },
      client,
      signal: extra.signal,
    });
    const content = [{ type: 'text' as const, text: outcome.content }];
    if (outcome.status !== 'ok') return { content, isError: true };
    const output = outcome.output;
    const structured = typeof output === 'object' && output !== null && !Array.isArray(output);
    return structured ? { content, structuredContent: output as Record<string, unknown> } : { content };
  });
  return server;
}

/** A tool that an agent runs only after a human approves (a policy function may approve some calls). */
function needsApproval(tool: Tool): boolean {
  return tool.needsApproval !== false;
}
