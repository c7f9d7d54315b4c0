import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildFixtureServer } from '../mcp/fixtures/build-fixture-server.mjs';
import { createHttpTestServer, type HttpTestServer } from './create-http-test-server.js';

/** The fixture MCP server over HTTP: Streamable HTTP at `/mcp`, legacy SSE at `/sse` + `/messages`. */
export interface McpHttpFixture {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `http://127.0.0.1:<port>/sse`: a legacy-only endpoint (Streamable HTTP POSTs get 405). */
  sseUrl: string;
  http: HttpTestServer;
  /** Forgets every Streamable HTTP session, as a restarted server would: their ids then get 404. */
  dropSessions(): Promise<void>;
  /** While on, sessions are forgotten as soon as they start: every request after `initialize` gets 404. */
  loseEverySession(on?: boolean): void;
  /** Sessions initialised so far. */
  readonly sessionsStarted: number;
  close(): Promise<void>;
}

/** Starts the fixture MCP server on 127.0.0.1 port 0 (stateful Streamable HTTP, one server per session). */
export async function startMcpHttpFixture(): Promise<McpHttpFixture> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  let sessionsStarted = 0;
  let loseSessions = false;
  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const parsed = body.length > 0 ? (JSON.parse(body.toString('utf8')) as unknown) : undefined;
    if (url.pathname === '/mcp') {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const transport = sessions.get(id);
        if (!transport) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32001, message: 'Session not found' },
              id: null,
            }),
          );
          return;
        }
        await transport.handleRequest(req, res, parsed);
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          if (!loseSessions) sessions.set(sessionId, transport);
          sessionsStarted += 1;
        },
      });
      await buildFixtureServer().connect(transport);
      await transport.handleRequest(req, res, parsed);
      return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sse.set(transport.sessionId, transport);
      await buildFixtureServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void res.writeHead(404).end();
      await transport.handlePostMessage(req, res, parsed);
      return;
    }
    res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
  };
  const http = await createHttpTestServer(handle);
  return {
    url: `${http.url}/mcp`,
    sseUrl: `${http.url}/sse`,
    http,
    get sessionsStarted() {
      return sessionsStarted;
    },
    loseEverySession(on = true) {
      loseSessions = on;
    },
    async dropSessions() {
      const dropped = [...sessions.values()];
      sessions.clear();
      await Promise.all(dropped.map((transport) => transport.close()));
    },
    async close() {
      await Promise.all([...sessions.values(), ...sse.values()].map((transport) => transport.close()));
      await http.close();
    },
  };
}
