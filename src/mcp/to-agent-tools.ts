import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolDefinitionError } from '../tools/errors.js';
import type { NeedsApproval, Tool } from '../tools/tool.js';
import type { JsonSchemaParameters } from '../tools/tool-parameters.js';
import { McpToolCallError } from './errors.js';
import { type McpCallResult, mcpResultText } from './mcp-result-text.js';
import type { McpCommonOptions } from './mcp-server-options.js';
import { mcpToolName } from './mcp-tool-name.js';

/** What a converted tool needs from its connection. */
interface McpCaller {
  readonly name: string;
  callTool(
    mcpName: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<McpCallResult>;
}

/**
 * Turns the server's tool descriptions into agent tools: the JSON Schema goes to `defineTool` as given,
 * names are checked (see `mcpToolName`), a call becomes `tools/call`, its result the `tool` message text,
 * and `isError` a failing tool the model is told about. Two tools ending up with one name is an error.
 */
export function toAgentTools(
  caller: McpCaller,
  infos: readonly McpToolInfo[],
  options: McpCommonOptions,
): Tool[] {
  const seen = new Map<string, string>();
  return infos.map((info) => {
    const name = mcpToolName(caller.name, info.name, options);
    const clash = seen.get(name);
    if (clash !== undefined) {
      throw new ToolDefinitionError({
        toolName: name,
        rule: `MCP server ${caller.name}: tools ${clash} and ${info.name} both map to this name; fix prefix or rename`,
      });
    }
    seen.set(name, info.name);
    const timeoutMs = options.timeoutMs;
    const readOnly = info.annotations?.readOnlyHint === true;
    return defineTool({
      name,
      description:
        info.description?.trim() || info.title || `Tool ${info.name} of the MCP server ${caller.name}.`,
      parameters: toParameters(info.inputSchema),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      needsApproval: approvalOf(info, options.needsApproval, readOnly),
      // A tool that only reads (or says repeating it is harmless) may run again on resume.
      idempotent: readOnly || info.annotations?.idempotentHint === true,
      execute: async (args, { signal }) => {
        const result = await caller.callTool(info.name, args, {
          signal,
          ...(timeoutMs ? { timeoutMs } : {}),
        });
        const text = mcpResultText(result);
        if (result.isError === true) throw new McpToolCallError({ mcpToolName: info.name, text, result });
        return text;
      },
    });
  });
}

function toParameters(schema: McpToolInfo['inputSchema']): JsonSchemaParameters {
  // MCP requires `type: "object"`; a server that leaves out `properties` means "no arguments".
  const { required, ...rest } = schema;
  return {
    ...rest,
    type: 'object',
    properties: (schema.properties ?? {}) as Record<string, object>,
    ...(required ? { required } : {}),
  };
}

function approvalOf(
  info: McpToolInfo,
  policy: McpCommonOptions['needsApproval'],
  readOnly: boolean,
): NeedsApproval<Record<string, unknown>> {
  if (policy === undefined || typeof policy === 'boolean') return policy ?? false;
  if (policy === 'destructive') return !readOnly;
  return policy[info.name] ?? false;
}
