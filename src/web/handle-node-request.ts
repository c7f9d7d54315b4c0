import type { IncomingMessage, ServerResponse } from 'node:http';

/** Reads a Node request body whole (chat requests are small JSON documents). */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Answers a Node request with a fetch-style handler: the request becomes a Web `Request`, the `Response`
 * is written back, streaming bodies chunk by chunk; when the client disconnects the body is cancelled.
 */
export async function handleNodeRequest(
  fetchHandler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const host = req.headers.host ?? 'localhost';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit = { method, headers };
  // Express's json() middleware may have read the body already: use what it parsed.
  const parsed = (req as { body?: unknown }).body;
  if (method !== 'GET' && method !== 'HEAD')
    init.body =
      parsed !== undefined && req.readableEnded
        ? typeof parsed === 'string' || parsed instanceof Uint8Array
          ? parsed
          : JSON.stringify(parsed)
        : new Uint8Array(await readBody(req));
  const response = await fetchHandler(new Request(`http://${host}${req.url ?? '/'}`, init));
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
      if (!res.write(value))
        await new Promise((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
    }
    if (corked) uncork();
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}
