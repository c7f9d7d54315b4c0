import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * Serves an MCP server over stdio until the client closes stdin; only the protocol is written to `stdout`.
 * @returns a promise that settles when the session has ended.
 */
export async function serveMcpStdio(
  server: Server,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<void> {
  const transport = new StdioServerTransport(io.stdin as never, io.stdout as never);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    io.stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}

/** A running Streamable HTTP MCP endpoint. */
export interface McpHttpEndpoint {
  /** `http://<host>:<port>/mcp`. */
  url: string;
  /** Stops accepting requests and ends every session. */
  close(): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP at `/mcp` (stateful: one server per session from `createSession`,
 * an unknown session id gets 404 as the spec says, `DELETE` ends a session).
 */
export async function serveMcpHttp(options: {
  createSession: () => Server;
  port?: number;
  host?: string;
}): Promise<McpHttpEndpoint> {
  const { createSession, port = 3000, host = '127.0.0.1' } = options;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = sessions.get(id);
      if (!transport) return reply(res, 404, 'session not found');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'no mcp-session-id: start with an initialize POST');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createSession().connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/mcp`,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
