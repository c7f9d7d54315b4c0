import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { readCappedNodeBody } from '../core/read-capped-node-body.js';
import { mcpSdk } from './mcp-sdk.js';

/**
 * Serves an MCP server over stdio until the client closes stdin; only the protocol is written to `stdout`.
 * @returns a promise that settles when the session has ended.
 */
export async function serveMcpStdio(
  server: Server,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<void> {
  const transport = new (mcpSdk().StdioServerTransport)(io.stdin as never, io.stdout as never);
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
  /** How many sessions are open now. */
  sessionCount(): number;
  /** Stops accepting requests and ends every session. */
  close(): Promise<void>;
}

/** Options of `serveMcpHttp`. */
export interface McpHttpServeOptions {
  /** Builds the MCP server of a new session. */
  createSession: () => Server;
  /** @default 3000; 0 picks a free port */
  port?: number;
  /** The address to bind. @default '127.0.0.1' */
  host?: string;
  /**
   * Every request must carry `Authorization: Bearer <token>` with this token, or one of these (one per
   * client): 401 otherwise. A session belongs to the token that opened it. Required when `host` is not
   * a loopback address.
   */
  token?: string | readonly string[];
  /**
   * `Host` values accepted besides the bound address (`name:port`), e.g. the name a proxy forwards;
   * any other Host, and an Origin that is not `http://` + an accepted Host, is refused (DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** A session with no request for this long is closed. @default 1_800_000 (30 minutes) */
  sessionIdleMs?: number;
  /**
   * The most sessions one token (or, without tokens, all clients) keeps open: a new session past it
   * closes that token's least recently used one, so a client that opens sessions in a loop bounds its own
   * memory and never closes another client's. @default 100
   */
  maxSessions?: number;
  /** A POST body past this many bytes is answered 413 without being buffered. @default 4 MiB */
  maxBodyBytes?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** The index of the token that opened it (`-1` without tokens): only the same one may use or delete it. */
  owner: number;
  idleTimer: NodeJS.Timeout;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Serves MCP over Streamable HTTP at `/mcp` (stateful: one server per session from `createSession`,
 * an unknown session id gets 404 as the spec says, `DELETE` ends a session). Guards as the MCP transport
 * spec asks: the SDK's DNS-rebinding protection (Host and Origin must name the bound address or
 * `allowedHosts`), an optional bearer `token` (required off loopback), sessions bound to the credentials
 * that opened them, and idle sessions closed after `sessionIdleMs`.
 */
export async function serveMcpHttp(options: McpHttpServeOptions): Promise<McpHttpEndpoint> {
  const {
    createSession,
    port = 3000,
    host = '127.0.0.1',
    sessionIdleMs = 1_800_000,
    maxSessions = 100,
    maxBodyBytes = 4 * 1024 * 1024,
  } = options;
  if (!Number.isInteger(maxSessions) || maxSessions < 1)
    throw new TypeError('serveMcpHttp: maxSessions must be an integer >= 1');
  const tokens = options.token === undefined ? [] : [options.token].flat();
  if (tokens.some((token) => token.length === 0))
    throw new TypeError('serveMcpHttp: a token must not be empty');
  if (!LOOPBACK.has(host) && tokens.length === 0)
    throw new TypeError(`serveMcpHttp: host ${host} is not loopback, so a token is required`);
  // In the order of their last use: the first of an owner's is the one to close at its cap.
  const sessions = new Map<string, Session>();
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];

  const endSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    clearTimeout(session.idleTimer);
    await session.transport.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (requestPath(req.url) !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const refusal = refuseHost(req, allowedHosts, allowedOrigins);
    if (refusal) return reply(res, 403, refusal);
    const owner = tokenIndex(bearerOf(req), tokens);
    if (owner === undefined) {
      res.setHeader('www-authenticate', 'Bearer');
      return reply(res, 401, 'unauthorized: send Authorization: Bearer <token>');
    }
    // Read here, capped, rather than by the SDK, which would buffer any size.
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readCappedNodeBody(req, maxBodyBytes);
      if (raw === undefined) return reply(res, 413, `body: larger than the limit of ${maxBodyBytes} bytes`);
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return reply(res, 400, 'Parse error: the body is not JSON');
      }
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      // Another client's session is as unknown as a made-up id.
      if (!session || session.owner !== owner) return reply(res, 404, 'session not found');
      session.idleTimer.refresh();
      sessions.delete(id);
      sessions.set(id, session);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return reply(res, 400, 'no mcp-session-id: start with an initialize POST');
    const transport: StreamableHTTPServerTransport = new (mcpSdk().StreamableHTTPServerTransport)({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
      onsessioninitialized: (sessionId) => {
        const own = [...sessions].filter(([, session]) => session.owner === owner);
        for (const [oldest] of own.slice(0, Math.max(0, own.length - maxSessions + 1)))
          void endSession(oldest);
        const idleTimer = setTimeout(() => void endSession(sessionId), sessionIdleMs);
        idleTimer.unref();
        sessions.set(sessionId, { transport, owner, idleTimer });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) void endSession(transport.sessionId);
    };
    await createSession().connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  const names = LOOPBACK.has(host) ? ['127.0.0.1', 'localhost', '[::1]'] : [shown];
  allowedHosts = [...names.map((name) => `${name}:${address.port}`), ...(options.allowedHosts ?? [])];
  allowedOrigins = allowedHosts.flatMap((allowed) => [`http://${allowed}`, `https://${allowed}`]);
  return {
    url: `http://${shown}:${address.port}/mcp`,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.keys()].map((id) => endSession(id)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The path of a request target, `undefined` when it is no path (`//`, `*`). */
function requestPath(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  try {
    return new URL(`http://localhost${target}`).pathname;
  } catch {
    return undefined;
  }
}

/** Why the Host or Origin is refused, checked before any session is made (the SDK checks again). */
function refuseHost(req: IncomingMessage, hosts: string[], origins: string[]): string | undefined {
  const host = req.headers.host ?? '';
  if (!hosts.includes(host)) return `Invalid Host header: ${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.includes(origin)) return `Invalid Origin header: ${origin}`;
  return undefined;
}

function bearerOf(req: IncomingMessage): string {
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
}

/** Which of `tokens` was given (compared in constant time); `-1` when no tokens are set; else `undefined`. */
function tokenIndex(given: string, tokens: readonly string[]): number | undefined {
  if (tokens.length === 0) return -1;
  const digest = createHash('sha256').update(given).digest();
  let found: number | undefined;
  tokens.forEach((token, index) => {
    if (timingSafeEqual(digest, createHash('sha256').update(token).digest())) found = index;
  });
  return found;
}

function reply(res: ServerResponse, status: number, message: string): void {
  // A request whose body was not read whole: close its connection after the answer.
  if (!res.req.complete) {
    res.setHeader('connection', 'close');
    res.once('finish', () => res.req.destroy());
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
