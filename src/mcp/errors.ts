import { RuntimeConditionError } from '../core/errors.js';

/** An MCP server could not be reached, refused the handshake, or went away; `server` names it. */
export class McpConnectionError extends RuntimeConditionError {
  /** The server's label (`name` option, else its command or URL). */
  readonly server: string;

  constructor(options: { server: string; message: string; cause?: unknown }) {
    super(`MCP server ${options.server}: ${options.message}`, { cause: options.cause });
    this.server = options.server;
  }
}

/**
 * An MCP tool answered with `isError: true`. Thrown from the tool's `execute`, so the model reads the
 * server's own text as `Error in <tool>: ...`, like any failing tool; `result` is the raw MCP result.
 */
export class McpToolCallError extends RuntimeConditionError {
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
