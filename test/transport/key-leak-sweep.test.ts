import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

const apiKey = 'sk-sweep-secret-5a5a5a5a5a5a';
const chunk = (delta: unknown) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'svc-3.5-flash', choices: [{ index: 0, delta }] })}\n\n`;

// Every way a server can echo the key back, streamed and not.
const echoes: Array<[name: string, stream: boolean, reply: (res: ServerResponse) => void]> = [];
for (const status of [400, 401, 402, 404, 429, 451, 500, 503]) {
  echoes.push([
    `${status} JSON error body`,
    false,
    (res) =>
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"key ${apiKey}"}}`),
  ]);
  echoes.push([
    `${status} HTML error page`,
    true,
    (res) => res.writeHead(status, { 'content-type': 'text/html' }).end(`<p>${apiKey}</p>`),
  ]);
}
echoes.push(
  [
    '2xx body that is not JSON',
    false,
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`oops ${apiKey}`),
  ],
  [
    '2xx body JSON.parse quotes',
    false,
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`${apiKey}`),
  ],
  [
    'non-SSE 200 to a stream',
    true,
    (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${apiKey}</p>`),
  ],
  [
    'error payload in a stream',
    true,
    (res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(
          `${chunk({ content: 'a' })}data: {"error":{"message":"${apiKey}","type":"invalid_api_key"}}\n\n`,
        ),
  ],
  [
    'stream event that is not JSON',
    true,
    (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${apiKey}\n\n`),
  ],
  [
    'stream event that is JSON but no chunk',
    true,
    (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: "${apiKey}"\n\n`),
  ],
  [
    'cut stream',
    true,
    (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: apiKey }), () => res.destroy());
    },
  ],
);

describe('key-leak sweep: no error from a server text carries the key', () => {
  let server: HttpTestServer;
  let client: SvcClient;
  let current: (res: ServerResponse) => void = () => undefined;
  beforeAll(async () => {
    server = await createHttpTestServer((_req, res) => current(res));
    client = new SvcClient({ apiKey, baseURL: server.url, maxRetries: 0, timeout: 2000 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it.each(echoes)('%s', async (_name, stream, reply) => {
    current = reply;
    const params = { model: 'svc-3.5-flash', messages: [{ role: 'user' as const, content: 'hi' }] };
    const error = await (async () => {
      if (!stream) return client.chat.completions.create(params);
      const s = await client.chat.completions.create({ ...params, stream: true });
      return s.finalCompletion();
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    for (const shown of [
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
    ]) {
      expect(shown).not.toContain(apiKey);
    }
    let cause = (error as { cause?: unknown }).cause;
    while (cause !== undefined) {
      expect(inspect(cause, { depth: 10 })).not.toContain(apiKey);
      cause = (cause as { cause?: unknown }).cause;
    }
  });
});
