import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the test server received it, body fully read. */
export interface ReceivedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/files?purpose=storage`. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Handler for the test server; `body` is the fully read request body. */
export type TestRequestHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => unknown;

/** A local HTTP server on 127.0.0.1 and a random port, for tests. */
export interface HttpTestServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  server: Server;
  /** Every request received so far, in order. */
  requests: ReceivedRequest[];
  /** Replace the handler (e.g. per test). */
  setHandler(handler: TestRequestHandler): void;
  /** Stops the server and destroys open sockets (keep-alive ones too). */
  close(): Promise<void>;
}

/**
 * Starts a node:http server on 127.0.0.1 port 0. The handler gets the request with its body already read;
 * a throwing handler answers 500 so tests fail loudly instead of hanging.
 */
export async function createHttpTestServer(handler?: TestRequestHandler): Promise<HttpTestServer> {
  let current: TestRequestHandler =
    handler ??
    ((_req, res) => {
      res.writeHead(404).end();
    });
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve()
        .then(() => current(req, res, body))
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`test handler failed: ${String(error)}`);
        });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    requests,
    setHandler(next) {
      current = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
