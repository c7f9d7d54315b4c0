import { connect } from 'node:net';

/** What a raw request got back: the status (0 when the connection closed without an answer) and the rest. */
export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** A request written byte for byte, so a test can send what no HTTP client would (`GET //`, a bad Host). */
export interface RawRequest {
  method?: string;
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Sends one request on its own connection (`Connection: close`) and reads the answer until the server
 * closes; a reset connection gives status 0.
 */
export function sendRawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  const { method = 'GET', target, headers = {}, body } = request;
  const lines = [`${method} ${target} HTTP/1.1`];
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...headers };
  if (body !== undefined && !('content-length' in all) && !('transfer-encoding' in all))
    all['content-length'] = String(Buffer.byteLength(body));
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const finish = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: head, body: rest.join('\r\n\r\n') });
    };
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (body !== undefined) socket.end(body);
  });
}
