import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ContentModerationError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitError,
  SvcError,
} from '../../src/core/errors.js';
import { HttpTransport } from '../../src/transport/http-transport.js';
import { normalizeClientOptions } from '../../src/transport/normalize-client-options.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

const apiKey = 'sk-test-secret-0123456789';

let server: HttpTestServer;
let transport: HttpTransport;

function createTransport(
  overrides: Partial<ConstructorParameters<typeof HttpTransport>[0]> = {},
): HttpTransport {
  return new HttpTransport({ apiKey, baseURL: server.url, maxRetries: 2, ...overrides });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

beforeEach(async () => {
  server = await createHttpTestServer();
  transport = createTransport();
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

describe('HttpTransport', () => {
  describe('when sending a JSON request', () => {
    it('should send the bearer key, JSON body and query as the server receives them', async () => {
      server.setHandler(json(200, { ok: true }));
      const result = await createTransport({
        defaultHeaders: { 'X-Default': 'd', 'X-Both': 'default' },
      }).request({
        method: 'POST',
        path: '/v1/chat/completions',
        query: { limit: 10, order: 'desc', after: undefined, flag: false },
        body: { model: 'svc-4', messages: [{ role: 'user', content: 'hé' }] },
        headers: { 'X-Both': 'request' },
      });

      expect(result).toEqual({ ok: true });
      const [received] = server.requests;
      expect(received?.method).toBe('POST');
      expect(received?.url).toBe('/v1/chat/completions?limit=10&order=desc&flag=false');
      expect(received?.headers.authorization).toBe(`Bearer ${apiKey}`);
      expect(received?.headers['content-type']).toBe('application/json');
      expect(received?.headers['x-default']).toBe('d');
      expect(received?.headers['x-both']).toBe('request');
      expect(JSON.parse(received?.body.toString('utf8') ?? '')).toEqual({
        model: 'svc-4',
        messages: [{ role: 'user', content: 'hé' }],
      });
    });

    it('should send no body and no JSON content type on a GET', async () => {
      server.setHandler(json(200, { data: [] }));
      await transport.request({ method: 'GET', path: '/v1/models' });
      const [received] = server.requests;
      expect(received?.headers['content-type']).toBeUndefined();
      expect(received?.body.length).toBe(0);
    });

    it('should never double /v1 when the user pasted it into baseURL', async () => {
      server.setHandler(json(200, {}));
      const options = normalizeClientOptions({ apiKey, baseURL: `${server.url}/v1/` }, {});
      const pasted = new HttpTransport(options);
      await pasted.request({ method: 'GET', path: '/v1/models' });
      await pasted.close();
      expect(server.requests[0]?.url).toBe('/v1/models');
    });

    it('should keep a path prefix of the base URL', async () => {
      server.setHandler(json(200, {}));
      await createTransport({ baseURL: `${server.url}/proxy` }).request({
        method: 'DELETE',
        path: '/v1/files/f1',
      });
      expect(server.requests[0]?.url).toBe('/proxy/v1/files/f1');
      expect(server.requests[0]?.method).toBe('DELETE');
    });

    it('should reuse keep-alive connections instead of opening one per request', async () => {
      const ports = new Set<number | undefined>();
      server.setHandler((req, res) => {
        ports.add(req.socket.remotePort);
        res.end('{}');
      });
      for (let i = 0; i < 10; i++) await transport.request({ method: 'GET', path: '/v1/models' });
      // undici may hand the next request to a second socket while the first is being released.
      expect(ports.size).toBeLessThanOrEqual(2);
    });
  });

  describe('when sending a multipart form', () => {
    it('should send the fields and the file with a multipart boundary', async () => {
      server.setHandler(json(200, { id: 'file-1' }));
      const form = new FormData();
      form.append('purpose', 'file-extract');
      form.append('file', new File(['hello world'], 'notes.txt', { type: 'text/plain' }));

      await transport.request({ method: 'POST', path: '/v1/files', form });

      const received = server.requests[0];
      expect(received?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      const body = received?.body.toString('utf8') ?? '';
      expect(body).toContain('name="purpose"\r\n\r\nfile-extract');
      expect(body).toContain('name="file"; filename="notes.txt"');
      expect(body).toContain('hello world');
    });
  });

  describe('when reading a text response', () => {
    it('should return the body as text', async () => {
      server.setHandler((_req, res) => res.end('plain text'));
      expect(
        await transport.request({ method: 'GET', path: '/v1/files/f/content', responseType: 'text' }),
      ).toBe('plain text');
    });
  });

  describe('when the server answers an error status', () => {
    it.each([
      [400, BadRequestError, 'request_params_invalid', false],
      [401, AuthenticationError, 'invalid_api_key', false],
      [402, PaymentRequiredError, 'quota_exceeded', false],
      [404, NotFoundError, 'not_found', false],
      [429, RateLimitError, 'rate_limit', true],
      [451, ContentModerationError, 'content_filter', false],
      [500, InternalServerError, 'server_error', true],
      [503, InternalServerError, 'overloaded', true],
      [504, InternalServerError, 'timeout', true],
      [409, APIError, 'conflict', true],
      [403, APIError, 'forbidden', false],
    ] as const)(
      'should throw %i as %O with type, requestId and isRetryable',
      async (status, ErrorClass, type, retryable) => {
        server.setHandler(
          json(status, { error: { message: `went wrong ${status}`, type } }, { 'X-Trace-Id': 'trace-42' }),
        );
        const error = await caught(transport.request({ method: 'GET', path: '/v1/models', maxRetries: 0 }));

        expect(error).toBeInstanceOf(ErrorClass);
        expect(error).toBeInstanceOf(APIError);
        expect(ErrorClass.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ status, type, requestId: 'trace-42', isRetryable: retryable });
        expect((error as Error).message).toBe(`${status} ${type}: went wrong ${status}`);
        expect((error as APIError).headers['x-trace-id']).toBe('trace-42');
      },
    );

    it('should give a useful message for a non-JSON body', async () => {
      server.setHandler((_req, res) => {
        res
          .writeHead(502, { 'content-type': 'text/html' })
          .end('<html>\n  <body>Bad gateway from nginx</body>\n</html>');
      });
      const error = await caught(transport.request({ method: 'GET', path: '/v1/models', maxRetries: 0 }));
      expect(error).toBeInstanceOf(InternalServerError);
      expect((error as Error).message).toBe(
        '502 Bad Gateway: <html> <body>Bad gateway from nginx</body> </html>',
      );
      expect((error as APIError).type).toBeUndefined();
    });

    it('should say so for an empty body', async () => {
      server.setHandler((_req, res) => res.writeHead(404).end());
      const error = await caught(transport.request({ method: 'GET', path: '/v1/nope' }));
      expect((error as Error).message).toBe('404 Not Found (empty response body)');
    });

    it('should tell RateLimitError.isInstance apart from other errors', async () => {
      server.setHandler(json(400, { error: { message: 'bad', type: 'request_params_invalid' } }));
      const error = await caught(transport.request({ method: 'GET', path: '/v1/models' }));
      expect(RateLimitError.isInstance(error)).toBe(false);
      expect(BadRequestError.isInstance(error)).toBe(true);
      expect(SvcError.isInstance(error)).toBe(true);
    });
  });

  describe('when a retryable status arrives', () => {
    it('should wait as long as retry-after-ms asks and then succeed', async () => {
      const times: number[] = [];
      server.setHandler((_req, res) => {
        times.push(performance.now());
        if (times.length === 1) {
          res.writeHead(429, { 'retry-after-ms': '300', 'content-type': 'application/json' });
          res.end('{"error":{"message":"slow down","type":"rate_limit"}}');
        } else res.end('{"ok":true}');
      });
      expect(await transport.request({ method: 'POST', path: '/v1/chat/completions', body: {} })).toEqual({
        ok: true,
      });
      expect(server.requests).toHaveLength(2);
      // Generous lower bound only: the server asked for 300 ms.
      expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(250);
    });

    it('should honour Retry-After in seconds', async () => {
      server.setHandler((_req, res) => {
        if (server.requests.length === 1) res.writeHead(429, { 'retry-after': '1' }).end('{}');
        else res.end('{"ok":true}');
      });
      const started = performance.now();
      expect(await transport.request({ method: 'GET', path: '/v1/models' })).toEqual({ ok: true });
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('should retry 503 and give up after maxRetries with the last error', async () => {
      server.setHandler(
        json(503, { error: { message: 'overloaded', type: 'overloaded' } }, { 'retry-after-ms': '10' }),
      );
      const error = await caught(transport.request({ method: 'GET', path: '/v1/models' }));
      expect(error).toBeInstanceOf(InternalServerError);
      expect(server.requests).toHaveLength(3);
    });

    it('should retry a dropped connection', async () => {
      server.setHandler((req, res) => {
        if (server.requests.length === 1) req.socket.destroy();
        else res.end('{"ok":true}');
      });
      expect(await transport.request({ method: 'GET', path: '/v1/models' })).toEqual({ ok: true });
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('when a non-retryable status arrives', () => {
    it.each([400, 401, 402, 404, 451])('should not retry %i', async (status) => {
      server.setHandler(json(status, { error: { message: 'no', type: 'x' } }, { 'retry-after-ms': '1' }));
      await caught(transport.request({ method: 'GET', path: '/v1/models', maxRetries: 5 }));
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('when nothing listens', () => {
    it('should throw APIConnectionError after retrying', async () => {
      const port = server.port;
      await server.close();
      const error = await caught(
        createTransport({ baseURL: `http://127.0.0.1:${port}`, maxRetries: 1 }).request({
          method: 'GET',
          path: '/',
        }),
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as APIError).isRetryable).toBe(true);
      expect((error as Error).message).toMatch(/ECONNREFUSED/);
      server = await createHttpTestServer();
    });
  });

  describe('when an attempt takes longer than the timeout', () => {
    it('should throw APITimeoutError after trying every attempt', async () => {
      server.setHandler(() => {
        // Never answers.
      });
      const error = await caught(
        transport.request({ method: 'GET', path: '/v1/models', timeout: 100, maxRetries: 1 }),
      );
      expect(error).toBeInstanceOf(APITimeoutError);
      expect((error as Error).message).toBe('Request timed out after 100 ms.');
      expect(server.requests).toHaveLength(2);
    });

    it('should bound the body read too', async () => {
      server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      });
      const error = await caught(
        transport.request({ method: 'GET', path: '/v1/models', timeout: 150, maxRetries: 0 }),
      );
      expect(error).toBeInstanceOf(APITimeoutError);
    });
  });

  describe('when the caller aborts', () => {
    it('should stop a request in flight with APIUserAbortError and not retry', async () => {
      server.setHandler(() => {});
      const controller = new AbortController();
      const pending = caught(
        transport.request({ method: 'GET', path: '/v1/models', signal: controller.signal }),
      );
      setTimeout(() => controller.abort(), 50);
      const error = await pending;
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect((error as APIError).isRetryable).toBe(false);
      expect(server.requests).toHaveLength(1);
    });

    it('should end a long retry wait at once', async () => {
      server.setHandler(
        json(429, { error: { message: 'wait', type: 'rate_limit' } }, { 'retry-after': '30' }),
      );
      const controller = new AbortController();
      const started = performance.now();
      const pending = caught(
        transport.request({ method: 'GET', path: '/v1/models', signal: controller.signal }),
      );
      setTimeout(() => controller.abort(), 100);
      const error = await pending;
      expect(error).toBeInstanceOf(APIUserAbortError);
      // Generous bound: the server asked for 30 s.
      expect(performance.now() - started).toBeLessThan(1000);
      expect(server.requests).toHaveLength(1);
    });

    it('should not send anything with an already aborted signal', async () => {
      const error = await caught(
        transport.request({ method: 'GET', path: '/', signal: AbortSignal.abort() }),
      );
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when the API key could leak', () => {
    it('should redact a key the server echoes in an error', async () => {
      server.setHandler(
        json(401, { error: { message: `Incorrect API key provided: ${apiKey}`, type: 'invalid_api_key' } }),
      );
      const error = await caught(transport.request({ method: 'GET', path: '/v1/models' }));
      expect((error as Error).message).toBe('401 invalid_api_key: Incorrect API key provided: ***');
      expect(JSON.stringify(error)).not.toContain(apiKey);
      expect(inspect(error, { depth: 10 })).not.toContain(apiKey);
      expect(JSON.stringify(Object.entries(error as object))).not.toContain(apiKey);
    });

    it('should keep it out of util.inspect and JSON.stringify of the transport', () => {
      expect(inspect(transport, { depth: 10, showHidden: true })).not.toContain(apiKey);
      expect(JSON.stringify(transport)).not.toContain(apiKey);
      expect(JSON.stringify({ nested: { transport } })).not.toContain(apiKey);
      expect(inspect(transport)).toContain(server.url);
    });

    it('should keep it out of connection errors', async () => {
      const error = await caught(
        createTransport({ baseURL: 'http://127.0.0.1:1', maxRetries: 0 }).request({
          method: 'GET',
          path: '/',
        }),
      );
      expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(apiKey);
      expect(JSON.stringify(error)).not.toContain(apiKey);
    });
  });

  describe('when a 2xx body is not JSON', () => {
    it('should throw a retryable typed error quoting the body, after the retries', async () => {
      server.setHandler((_req, res) => res.end('<html>oops</html>'));
      const error = await caught(transport.request({ method: 'GET', path: '/v1/models', maxRetries: 1 }));
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).type).toBe('invalid_response_body');
      expect((error as APIError).isRetryable).toBe(true);
      expect((error as Error).message).toContain('<html>oops</html>');
      // Nothing local ran on the unreadable answer: the request is tried again like after a 5xx.
      expect(server.requests).toHaveLength(2);
    });
  });
});
