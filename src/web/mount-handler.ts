import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthorizeVerdict, type ChatOwner, ownerOfVerdict } from './chat-owner.js';
import { handleNodeRequest, requestPathname } from './handle-node-request.js';
import { ChatRequestError, errorResponse } from './web-error.js';

/** Routes under a base path, as a fetch handler and as a Node listener. */
export interface MountedHandler {
  /** Answers a Web `Request` (Hono, Next.js route handlers, Bun, Deno); 404 outside `basePath`. */
  fetch(request: Request): Promise<Response>;
  /** Answers a Node request (`http.createServer`, Express); outside `basePath` calls `next` or answers 404. */
  node(req: IncomingMessage, res: ServerResponse, next?: () => void): Promise<void>;
  /** True when the path is one of the handler's. */
  matches(pathname: string): boolean;
  /** Stops what the handler started in this process. */
  close(): Promise<void>;
}

/** What `mountHandler` serves. */
export interface MountOptions {
  /** The base path, without a trailing slash. */
  base: string;
  /** Asked first, so a refused request reads nothing. */
  authorize: ((request: Request) => AuthorizeVerdict | Promise<AuthorizeVerdict>) | undefined;
  /** Answers an authorized request; `path` is the pathname after `base`. */
  route(request: Request, owner: ChatOwner | undefined, path: string): Promise<Response>;
  close(): Promise<void>;
  maxBodyBytes: number;
  onError: (error: unknown) => void;
}

/**
 * The one way the web handlers are mounted: exactly under `base` (a framework mounting the handler on a
 * wider pattern must not let `/xyz/chat` in past a guard that only covers `/api/*`), `authorize` asked
 * before anything is read, a `ChatRequestError` answered as its status and anything else as a 500 told to
 * `onError`, and the same routes behind a Node listener.
 */
export function mountHandler(options: MountOptions): MountedHandler {
  const { base, authorize, route, maxBodyBytes, onError } = options;
  const matches = (pathname: string) => pathname === base || pathname.startsWith(`${base}/`);
  const handler: MountedHandler = {
    matches,
    async fetch(request) {
      try {
        const { pathname } = new URL(request.url);
        if (!matches(pathname))
          throw new ChatRequestError({
            status: 404,
            message: `${request.method} ${pathname}: no such route`,
          });
        const verdict = authorize ? ownerOfVerdict(await authorize(request)) : { owner: undefined };
        if (verdict instanceof Response) return verdict;
        return await route(request, verdict.owner, pathname.slice(base.length));
      } catch (error) {
        if (!(error instanceof ChatRequestError)) onError(error);
        return errorResponse(error);
      }
    },
    async node(req, res, next) {
      const pathname = requestPathname(req.url);
      if (pathname !== undefined && !matches(pathname) && next) return next();
      await handleNodeRequest(handler.fetch, req, res, { maxBodyBytes, onError });
    },
    close: () => options.close(),
  };
  return handler;
}
