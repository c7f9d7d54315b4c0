import type { Store } from '../../agent/durable/store.js';
import { ConfigurationError } from '../../core/errors.js';
import type { AuthorizeVerdict } from '../chat-owner.js';
import { type MountedHandler, mountHandler } from '../mount-handler.js';
import { defaultMaxBodyBytes } from '../request-body.js';
import { ChatRequestError } from '../web-error.js';
import type { InspectorAgent } from './inspector-agents.js';
import { type InspectorContext, routeInspectorApi } from './inspector-api.js';
import { INSPECTOR_CONTENT_SECURITY_POLICY, renderInspectorPage } from './inspector-page-html.js';
import { loadInspectorScript } from './load-inspector-script.js';

/** Options of `createInspectorHandler`. */
export interface InspectorHandlerOptions {
  /** The store whose runs are inspected (`memoryStore`, `fileStore`, `redisStore`, `postgresStore`). */
  store: Store;
  /**
   * The agents runs are forked and exported with, by agent name, as `startWorker`'s: an agent or a factory
   * building one per fork (only a factory can take a fork's changed model or instructions). Runs of an
   * agent not given are shown, and their fork and export buttons say why they are disabled. @default {}
   */
  agents?: Readonly<Record<string, InspectorAgent>>;
  /**
   * Who may inspect, asked before anything is read: `true` or an owner `{ userId }` admits the request
   * (every admitted request sees every run of the store), `false` answers 401, a `Response` (a 403) is
   * answered as is. Without it the inspector is open to whoever reaches it: mount it behind your app's
   * admin authentication. @example authorize: async (request) => (await isAdmin(request)) || new Response(null, { status: 403 })
   */
  authorize?: (request: Request) => AuthorizeVerdict | Promise<AuthorizeVerdict>;
  /** The path the page and its routes live under. @default '/inspector' */
  basePath?: string;
  /** A request body past this many bytes is answered 413. @default 4 MiB */
  maxBodyBytes?: number;
  /** Told about a failure of the handler itself, which is answered 500. @default console.error */
  onError?: (error: unknown) => void;
  /** Test seams. */
  _internal?: { generateId?: () => string };
}

/** The inspector page and its routes, as a fetch handler and as a Node listener. */
export interface InspectorHandler extends MountedHandler {
  /** Stops the forks this handler started and waits for them to record how they ended. */
  close(): Promise<void>;
}

/**
 * The run inspector, mountable in an app behind its own auth: the page at `<basePath>/` (runs list, one
 * run's timeline, messages, checkpoints and events, sessions) and its JSON routes under `<basePath>/api`
 * (see `routeInspectorApi`). The page loads only its own script and styles (no inline script; the styles
 * by hash), so it runs under a strict Content-Security-Policy, which its answers carry.
 */
export function createInspectorHandler(options: InspectorHandlerOptions): InspectorHandler {
  const {
    store,
    agents = {},
    authorize,
    maxBodyBytes = defaultMaxBodyBytes,
    onError = console.error,
  } = options;
  if (typeof store?.getRun !== 'function' || typeof store.listRuns !== 'function') {
    throw new ConfigurationError({
      field: 'store',
      rule: 'must be a Store (memoryStore, fileStore, redisStore, postgresStore)',
    });
  }
  const base = (options.basePath ?? '/inspector').replace(/\/+$/, '');
  const closing = new AbortController();
  const context: InspectorContext = {
    store,
    agents,
    maxBodyBytes,
    signal: closing.signal,
    forks: new Set(),
    ...(options._internal?.generateId && { generateId: options._internal.generateId }),
  };
  const security = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': INSPECTOR_CONTENT_SECURITY_POLICY,
    'cache-control': 'no-store',
  };

  async function route(request: Request, _owner: unknown, path: string): Promise<Response> {
    const method = request.method;
    if (path === '' && method === 'GET') {
      // The page's relative addresses need the trailing slash.
      return new Response(null, { status: 308, headers: { location: `${base}/` } });
    }
    if (path === '/' && method === 'GET') {
      return new Response(renderInspectorPage(), {
        headers: { 'content-type': 'text/html; charset=utf-8', ...security },
      });
    }
    if (path === '/inspector.js' && method === 'GET') {
      return new Response(await loadInspectorScript(), {
        headers: { 'content-type': 'text/javascript; charset=utf-8', ...security },
      });
    }
    if (path.startsWith('/api/')) {
      if (method !== 'GET') refuseForeignOrigin(request);
      const answer = await routeInspectorApi(context, request, path.slice('/api'.length));
      if (answer) {
        answer.headers.set('cache-control', 'no-store');
        return answer;
      }
    }
    throw new ChatRequestError({ status: 404, message: `${method} ${base}${path}: no such route` });
  }

  // `authorize` is asked first: a refused request reads nothing of the store.
  return mountHandler({
    base,
    authorize,
    route,
    async close() {
      closing.abort();
      await Promise.allSettled([...context.forks]);
    },
    maxBodyBytes,
    onError,
  });
}

/** A fork changes the store: only the inspector's own page (or a client sending no Origin) may ask for one. */
function refuseForeignOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== new URL(request.url).origin) {
    throw new ChatRequestError({ status: 403, message: `origin: requests from ${origin} are refused` });
  }
}
