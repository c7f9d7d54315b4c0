import { TOOL_NAME_PATTERN } from '../tools/define-tool.js';
import { ToolDefinitionError } from '../tools/errors.js';

/** How MCP tool names become the names the model calls: a prefix for all, or a name per tool. */
export interface McpToolNaming {
  /** Put before every tool name, e.g. `github_`; a renamed tool does not get it. */
  prefix?: string | undefined;
  /** The model-facing name of a tool, by its name on the server; wins over `prefix`. */
  rename?: Readonly<Record<string, string>> | undefined;
}

/**
 * The name the model sees for the server's tool `mcpName`. A name the service would refuse
 * (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`) is a `ToolDefinitionError` naming the server and the way out; it is
 * never silently rewritten, since two rewritten names could collide or surprise the prompt's author.
 */
export function mcpToolName(server: string, mcpName: string, naming: McpToolNaming): string {
  const renamed = naming.rename?.[mcpName];
  const name = renamed ?? `${naming.prefix ?? ''}${mcpName}`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    const why =
      name.length > 64
        ? `is ${name.length} characters long (at most 64)`
        : 'must start with a letter or _ and hold only letters, digits, _ and -';
    const how = renamed
      ? `fix rename["${mcpName}"]`
      : `pass rename: { "${mcpName}": "<a valid name>" }${naming.prefix ? ' or a shorter prefix' : ''}, or leave the tool out with deny`;
    throw new ToolDefinitionError({
      toolName: name,
      rule: `MCP server ${server}: tool name ${why}; names must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$; ${how}`,
    });
  }
  return name;
}
