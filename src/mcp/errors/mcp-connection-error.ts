import { SvcError } from '../../transport/errors/svc-error.js';

/** An MCP server could not be reached, refused the handshake, or went away; `server` names it. */
export class McpConnectionError extends SvcError {
  /** The server's label (`name` option, else its command or URL). */
  readonly server: string;

  constructor(options: { server: string; message: string; cause?: unknown }) {
    super(`MCP server ${options.server}: ${options.message}`, { cause: options.cause });
    this.server = options.server;
  }
}
