import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../../../agent/durable/store.js';
import type { SvcClient } from '../../../api/svc-client.js';
import { defaults } from '../../../core/defaults.js';
import { ConfigurationError } from '../../../core/errors.js';
import { type AuthorizeVerdict, ownedSessionId, ownerOfVerdict } from '../../../web/chat-owner.js';
import type { ChatRunner } from '../../../web/chat-runner.js';
import { createChatHandler } from '../../../web/create-chat-handler.js';
import { handleNodeRequest, requestPathname } from '../../../web/handle-node-request.js';
import { readBodyBytes } from '../../../web/request-body.js';
import { ChatRequestError, errorResponse, jsonResponse } from '../../../web/web-error.js';
import { renderChatPage } from './chat-page-html.js';
import { KnowledgeUploads, maxUploadBytes } from './knowledge-uploads.js';
import { loadPageScript } from './load-page-script.js';
import type { ServeAgentFactory } from './serve-agent.js';

/** Options of `startChatServer`. */
export interface ChatServerOptions {
  /** The client the agents and uploads use. */
  client: SvcClient;
  /** Builds the agent of a session. */
  agent: ServeAgentFactory;
  /** @default 8787; 0 picks a free port */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Shown under the page title. */
  subtitle?: string;
  /**
   * Origins (`http://localhost:5173`) whose pages may POST besides the server's own: a dev server's proxy
   * that rewrites Host (Vite's `changeOrigin`) forwards its page's Origin, which differs from the Host.
   * @default []
   */
  allowedOrigins?: readonly string[];
  /**
   * Where sessions, runs, paused runs and event logs are kept; servers on one Redis or PostgreSQL store
   * serve one chat together. @default memoryStore() (evicting)
   */
  store?: Store;
  /** Where runs execute. @default in this process */
  runner?: ChatRunner;
  /**
   * Who a request acts for, as `createChatHandler`'s `authorize`, for the chat routes and the uploads:
   * each owner's sessions and their uploaded files are their own. The page is for one user on loopback:
   * without it every request is the anonymous owner.
   */
  authorize?: (request: Request) => AuthorizeVerdict | Promise<AuthorizeVerdict>;
}

/** A running chat server. */
export interface ChatServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Aborts the runs and closes the server. */
  close(): Promise<void>;
}

/** Serves the one-page web chat and its API (`/api/...`) on `host:port`. */
export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const { client, port = defaults.servePort, host = '127.0.0.1', subtitle = '' } = options;
  const allowedOrigins = new Set(checkAllowedOrigins(options.allowedOrigins ?? []));
  const uploads = new KnowledgeUploads(client, options.store);
  const chat = createChatHandler({
    ...(options.store && { store: options.store }),
    ...(options.runner && { runner: options.runner }),
    ...(options.authorize && { authorize: options.authorize }),
    agent: async ({ sessionId, vision, owner }) =>
      options.agent({
        client,
        sessionId,
        vision,
        owner,
        knowledgeBaseId: await uploads.storeOf(ownedSessionId(owner, sessionId)),
      }),
  });
  const html = renderChatPage({ subtitle });

  async function uploadFile(request: Request): Promise<Response> {
    const verdict = options.authorize
      ? ownerOfVerdict(await options.authorize(request))
      : { owner: undefined };
    if (verdict instanceof Response) return verdict;
    const url = new URL(request.url);
    const sessionId = url.searchParams.get('sessionId');
    const name = url.searchParams.get('name');
    if (!sessionId || !/^[\w.-]{1,128}$/.test(sessionId))
      throw new ChatRequestError({
        status: 400,
        message: 'sessionId: required, 1-128 letters, digits, _ . or -',
      });
    if (!name || name.length > 255)
      throw new ChatRequestError({ status: 400, message: 'name: required file name' });
    const bytes = await readBodyBytes(request.body, maxUploadBytes, request.headers.get('content-length'));
    // The session's files are its owner's: another owner's session of the same name has its own base.
    return jsonResponse(200, await uploads.add(ownedSessionId(verdict.owner, sessionId), name, bytes));
  }

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const security = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': CONTENT_SECURITY_POLICY,
    };
    if (req.method === 'GET' && pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...security }).end(html);
    } else if (req.method === 'GET' && pathname === '/app.js') {
      const script = await loadPageScript();
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', ...security }).end(script);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    }
  }

  const server = createServer((req, res) => {
    const pathname = requestPathname(req.url);
    if (pathname === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('Bad request target');
      return;
    }
    const refusal = refuseForeign(req, allowedOrigins);
    if (refusal) {
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(refusal);
      return;
    }
    const done =
      pathname === '/api/files' && req.method === 'POST'
        ? handleNodeRequest((request) => uploadFile(request).catch(errorResponse), req, res, {
            maxBodyBytes: maxUploadBytes,
          })
        : chat.matches(pathname)
          ? chat.node(req, res)
          : serveStatic(req, res, pathname);
    done.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    async close() {
      await chat.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The page loads its own script and styles only, talks to its own origin only, and is framed by no other site.
 * Images and the spoken answer are shown from `blob:` URLs the page makes itself (attachments, the wav).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'self'";

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

/**
 * The chat runs tools on this machine, so only its own page (and the origins allowed by name) may drive
 * it: a Host that is not loopback (DNS rebinding) or a POST from another origin (a web page posting to
 * 127.0.0.1) is refused.
 */
function refuseForeign(req: IncomingMessage, allowedOrigins: ReadonlySet<string>): string | undefined {
  const host = req.headers.host ?? '';
  if (!LOOPBACK_HOST.test(host)) return `Host ${host}: only 127.0.0.1 and localhost are served`;
  const origin = req.headers.origin;
  if (
    req.method !== 'GET' &&
    origin !== undefined &&
    origin !== `http://${host}` &&
    !allowedOrigins.has(origin)
  )
    return `Origin ${origin}: requests from other sites are refused (allow it with --allow-origin or allowedOrigins)`;
  return undefined;
}

/** `allowedOrigins`, each a bare origin as browsers send it in `Origin` (scheme, host, port; no path). */
export function checkAllowedOrigins(origins: readonly string[]): string[] {
  return origins.map((origin, index) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
      throw new ConfigurationError({
        field: `allowedOrigins[${index}]`,
        rule: `"${origin}" must be an origin as browsers send it, e.g. http://localhost:5173 (no path, no trailing /)`,
      });
    return origin;
  });
}
