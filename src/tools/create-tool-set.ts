import type { ToolDefinition } from '../api/types/chat.js';
import { ToolDefinitionError } from './errors.js';
import type { AnyTool, HostedTool, Tool, ToolSet } from './tool.js';

/** Name a tool occupies in the request's `tools` (hosted web search has none, so it uses its type). */
function toolNameOf(tool: AnyTool): string {
  if (tool.kind === 'function') return tool.name;
  return tool.definition.type === 'retrieval' ? tool.definition.function.name : tool.definition.type;
}

/** Groups tools for a run; two tools with one name are a `ToolDefinitionError`. */
export function createToolSet(tools: readonly AnyTool[]): ToolSet {
  const functions = new Map<string, Tool>();
  const hosted: HostedTool[] = [];
  const definitions: ToolDefinition[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const kind = (tool as { kind?: unknown } | null)?.kind;
    if (kind !== 'function' && kind !== 'hosted') {
      throw new ToolDefinitionError({
        toolName: `tools[${index}]`,
        rule: 'not a tool; build tools with defineTool() or hostedTools',
      });
    }
    const name = toolNameOf(tool);
    if (seen.has(name)) {
      throw new ToolDefinitionError({ toolName: name, rule: 'duplicate tool name in one tool set' });
    }
    seen.add(name);
    if (tool.kind === 'function') functions.set(name, tool);
    else hosted.push(tool);
    definitions.push(tool.definition);
  });
  return { functions, hosted, definitions };
}
