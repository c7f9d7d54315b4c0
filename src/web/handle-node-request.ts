import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyTooLargeError, defaultMaxBodyBytes } from './request-body.js';
import { ChatRequestError, errorResponse } from './web-error.js';

/** Options of `handleNodeRequest`. */
export interface NodeRequestOptions {
  /** Reading a body past this many bytes fails with a 413 `ChatRequestError`. @default 4 MiB */
  maxBodyBytes?: number;
  /** Told about a failure of the handler itself (answered 500). @default console.error */
  onError?: (error: unknown) => void;
}

/**
 * Answers a Node request with a fetch-style handler: the request becomes a Web `Request`, the `Response`
 * is written back, streaming bodies chunk by chunk; when the client disconnects the body is cancelled.
 * The request body is streamed, not buffered: the handler reads it when (and if) it wants, and reading
 * past `maxBodyBytes` fails. It never rejects: a malformed request (a target or Host that is no URL) is
 * answered 400, a throwing handler 500 (reported to `onError`); a connection whose request body was not
 * read whole is closed after the answer.
 */
export async function handleNodeRequest(
  fetchHandler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  options: NodeRequestOptions = {},
): Promise<void> {
  const { maxBodyBytes = defaultMaxBodyBytes, onError = console.error } = options;
  let response: Response;
  try {
    const request = toWebRequest(req, maxBodyBytes);
    response = await fetchHandler(request).catch((error: unknown) => {
      if (!(error instanceof ChatRequestError)) onError(error);
      return errorResponse(error);
    });
  } catch (error) {
    // The request itself was refused (bad target, Host or method).
    response = errorResponse(
      error instanceof ChatRequestError
        ? error
        : new ChatRequestError({ status: 400, message: `request: ${(error as Error).message}` }),
    );
  }
  if (!req.complete) {
    // The body was not read whole (refused, or past the limit): close rather than read the rest.
    res.setHeader('connection', 'close');
    res.once('finish', () => req.destroy());
  }
  try {
    await writeResponse(response, res);
  } catch (error) {
    onError(error);
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  }
}

/** `req` as a Web `Request` with a streamed body; a 400 when its target or Host make no URL. */
function toWebRequest(req: IncomingMessage, maxBodyBytes: number): Request {
  const target = req.url ?? '/';
  if (!target.startsWith('/'))
    throw new ChatRequestError({ status: 400, message: `request target ${target}: must be a path` });
  let url: URL;
  try {
    url = new URL(`http://${req.headers.host ?? 'localhost'}${target}`);
  } catch {
    throw new ChatRequestError({ status: 400, message: 'Host: the request target and Host make no URL' });
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  // Express's json() middleware may have read the body already: use what it parsed.
  const parsed = (req as { body?: unknown }).body;
  if (method !== 'GET' && method !== 'HEAD')
    init.body =
      parsed !== undefined && req.readableEnded
        ? typeof parsed === 'string' || parsed instanceof Uint8Array
          ? parsed
          : JSON.stringify(parsed)
        : limitedBody(req, maxBodyBytes);
  if (init.body instanceof ReadableStream) init.duplex = 'half';
  return new Request(url, init);
}

/** The body of `req` as a Web stream that fails with a 413 once it passes `maxBytes`. */
function limitedBody(req: IncomingMessage, maxBytes: number): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await chunks.next();
        if (done) return controller.close();
        size += (value as Buffer).byteLength;
        if (size > maxBytes) controller.error(bodyTooLargeError(maxBytes));
        else controller.enqueue(new Uint8Array(value as Buffer));
      } catch (error) {
        controller.error(error);
      }
    },
    // A reader that stops early leaves the rest unread: `handleNodeRequest` closes the connection after
    // the answer (ending the iterator here would destroy the socket before the answer is written).
  });
}

/** Writes a `Response` to `res`, streaming its body; a client that disconnects cancels the body. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    outHeaders[name] = value;
  });
  res.writeHead(response.status, outHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  const onClose = () => void reader.cancel(new Error('The client closed the connection.')).catch(() => {});
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Chunks read in the same turn of the event loop leave in one socket write.
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(uncork);
      }
      if (!res.write(value)) await drained(res);
    }
    if (corked) uncork();
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

/**
 * Waits until `res` can take more, or is gone; both listeners are removed either way (a long stream to a
 * slow client waits thousands of times: one listener left per wait would pile up on the response).
 */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The path of a Node request's target, or `undefined` when it is no path (`//`, `*`, `http://...`). */
export function requestPathname(target: string | undefined): string | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  try {
    return new URL(`http://localhost${target}`).pathname;
  } catch {
    return undefined;
  }
}
