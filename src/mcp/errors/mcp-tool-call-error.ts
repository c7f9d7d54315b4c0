import { SvcError } from '../../transport/errors/svc-error.js';

/**
 * An MCP tool answered with `isError: true`. Thrown from the tool's `execute`, so the model reads the
 * server's own text as `Error in <tool>: ...`, like any failing tool; `result` is the raw MCP result.
 */
export class McpToolCallError extends SvcError {
  /** The tool's name on the MCP server. */
  readonly mcpToolName: string;
  /** The `tools/call` result as the server sent it. */
  readonly result: unknown;

  constructor(options: { mcpToolName: string; text: string; result: unknown }) {
    super(options.text || `MCP tool ${options.mcpToolName} failed without a message`);
    this.mcpToolName = options.mcpToolName;
    this.result = options.result;
  }
}
