import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';
import { leaksKey } from '../helpers/leaks-key.js';

// A '/' and a '+' so the JSON-escaped, URL-encoded and base64 forms all differ from the key itself.
const apiKey = 'sk-sweep/secret+5a5a5a5a5a5a';
const base64Within = (prefix: string) => Buffer.from(`${prefix}${apiKey}!`).toString('base64');

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
    'X-Trace-Id echoing the key on an error',
    false,
    (res) =>
      res
        .writeHead(500, { 'content-type': 'application/json', 'x-trace-id': `trace ${apiKey}` })
        .end('{"error":{"message":"boom"}}'),
  ],
  [
    'X-Trace-Id echoing the key on a stream that fails',
    true,
    (res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream', 'x-trace-id': apiKey })
        .end('data: {"error":{"message":"boom","type":"server_error"}}\n\n'),
  ],
  [
    'key across the 200th character of a body that is not JSON',
    false,
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`${'x'.repeat(190)}${apiKey}`),
  ],
  [
    'key across the 200th character of a stream event',
    true,
    (res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(`data: ${'x'.repeat(190)}${apiKey}\n\n`),
  ],
  [
    'key across the cut of an HTML error page',
    false,
    (res) => res.writeHead(502, { 'content-type': 'text/html' }).end(`<p>${'x'.repeat(292)}${apiKey}</p>`),
  ],
  [
    'JSON-escaped key in an error message',
    false,
    (res) =>
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"key ${apiKey.replace('/', '\\/')}"}}`),
  ],
  [
    'unicode-escaped key in an error message',
    true,
    (res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"${apiKey.replace('s', '\\u0073')}","type":"invalid_api_key"}}`),
  ],
  [
    'JSON-escaped key in a stream error event',
    true,
    (res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(`data: {"error":{"message":"${apiKey.replace('/', '\\/')}","type":"server_error"}}\n\n`),
  ],
  ...['', 'a', 'ab'].map((prefix): (typeof echoes)[number] => [
    `base64 of the key after ${prefix.length} bytes`,
    false,
    (res) =>
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"token ${base64Within(prefix)}"}}`),
  ]),
  [
    'base64url of the key in an error page',
    true,
    (res) =>
      res
        .writeHead(503, { 'content-type': 'text/plain' })
        .end(Buffer.from(`auth=${apiKey}`).toString('base64url')),
  ],
  [
    'URL-encoded key in an error message',
    false,
    (res) =>
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"GET /?key=${encodeURIComponent(apiKey)}"}}`),
  ],
  [
    'form-encoded key in an error page',
    false,
    (res) =>
      res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(new URLSearchParams({ key: apiKey }).toString()),
  ],
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
      expect(leaksKey(shown, apiKey), shown).toBe(false);
    }
    let cause = (error as { cause?: unknown }).cause;
    while (cause !== undefined) {
      expect(leaksKey(inspect(cause, { depth: 10 }), apiKey)).toBe(false);
      cause = (cause as { cause?: unknown }).cause;
    }
  });
});
