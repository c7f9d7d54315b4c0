import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
} from '../../../src/core/errors.js';
import { type ApiTestSetup, createApiTestSetup, testApiKey } from '../../helpers/create-api-test-setup.js';
import { createChunk } from '../../helpers/create-chunk.js';

const params = {
  model: 'svc-3.5-flash',
  messages: [{ role: 'user' as const, content: 'Hi' }],
  stream: true as const,
};

function head(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
}

function data(event: unknown): string {
  return `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
}

/** Every way an error can be shown: none may carry the key. */
function expectNoKey(error: unknown): void {
  expect(String(error)).not.toContain(testApiKey);
  expect(JSON.stringify(error)).not.toContain(testApiKey);
  expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(testApiKey);
}

describe('ChatCompletionStream against a hostile server', () => {
  let setup: ApiTestSetup;
  beforeAll(async () => {
    setup = await createApiTestSetup({ timeout: 300 });
  });
  afterEach(() => {
    setup.server.requests.length = 0;
  });
  afterAll(() => setup.close());

  describe('when the stream stalls after its head and a first chunk', () => {
    it('should end within the idle timeout with a retryable APITimeoutError', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.write(data(createChunk({ choices: [{ delta: { content: 'a' } }] })));
        // Then silence, never ended.
      });
      const stream = await setup.client.chat.completions.create(params);
      const started = Date.now();
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APITimeoutError);
      expect((error as APIError).isRetryable).toBe(true);
      // 300 ms idle limit: nowhere near undici's 300 s body timeout.
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('should not cut a stream that drips faster than the idle timeout', async () => {
      setup.server.setHandler(async (_req, res) => {
        head(res);
        for (let i = 0; i < 6; i++) {
          res.write(data(createChunk({ choices: [{ delta: { content: `${i}` } }] })));
          // A slow server: chunks 100 ms apart.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        res.end(`${data(createChunk({ choices: [{ delta: {}, finish_reason: 'stop' }] }))}data: [DONE]\n\n`);
      });
      const stream = await setup.client.chat.completions.create(params);
      expect((await stream.finalCompletion()).choices[0]?.message.content).toBe('012345');
    });
  });

  describe('when fast streams end (soak finding)', () => {
    it('should leave no idle timer behind holding the finished stream', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `${data(createChunk({ choices: [{ delta: { content: 'a' }, finish_reason: 'stop' }] }))}data: [DONE]\n\n`,
        );
      });
      const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
      const before = timers();
      for (let i = 0; i < 20; i++) {
        const stream = await setup.client.chat.completions.create(params);
        await stream.finalCompletion();
      }
      expect(timers() - before).toBeLessThan(5);
    });
  });

  describe('when the body ends without [DONE] and without a finish_reason', () => {
    it('should reject with a retryable APIConnectionError, not a partial completion', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(
          data(
            createChunk({
              choices: [
                {
                  delta: {
                    tool_calls: [
                      {
                        index: 0,
                        id: 'call_1',
                        type: 'function',
                        function: { name: 'w', arguments: '{"city":"Pa' },
                      },
                    ],
                  },
                },
              ],
            }),
          ),
        );
      });
      const stream = await setup.client.chat.completions.create(params);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as APIError).isRetryable).toBe(true);
    });

    it('should accept a body that ends without [DONE] after a finish_reason', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(data(createChunk({ choices: [{ delta: { content: 'ok' }, finish_reason: 'stop' }] })));
      });
      const stream = await setup.client.chat.completions.create(params);
      expect((await stream.finalCompletion()).choices[0]?.message.content).toBe('ok');
    });
  });

  describe('when a 2xx answers the streamed request with something else', () => {
    it.each([
      ['application/json', JSON.stringify({ id: 'x', choices: [] })],
      ['text/html', `<html><body>Proxy login ${testApiKey}</body></html>`],
    ])('should throw an APIError naming %s and quoting the start, key redacted', async (type, body) => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      });
      const error = await setup.client.chat.completions.create(params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as Error).message).toContain(type);
      expect((error as Error).message).toContain(body.slice(0, 12));
      expectNoKey(error);
    });
  });

  describe('when the server echoes the key', () => {
    it('should redact it from a non-JSON 2xx body', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`not json, your key is ${testApiKey}`);
      });
      const error = await setup.client.chat.completions
        .create({ ...params, stream: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as Error).message).toContain('***');
      expectNoKey(error);
    });

    it('should redact it from an error payload inside the stream', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(data({ error: { message: `Bad key ${testApiKey}`, type: 'server_error' } }));
      });
      const stream = await setup.client.chat.completions.create(params);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expectNoKey(error);
    });

    it('should redact it from a stream event that is not JSON', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(data(`oops ${testApiKey}`));
      });
      const stream = await setup.client.chat.completions.create(params);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expectNoKey(error);
    });
  });

  describe('when a chunk or a body is malformed', () => {
    it('should throw a retryable APIError for a malformed stream chunk', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(
          `${data(createChunk({ choices: [{ delta: { content: 'a' } }] }))}data: {"choices":[{"del\n\n`,
        );
      });
      const stream = await setup.client.chat.completions.create(params);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).isRetryable).toBe(true);
    });

    it('should throw a retryable APIError for a malformed non-streamed body', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"chatcmpl-1","choices":[');
      });
      const error = await setup.client.chat.completions
        .create({ ...params, stream: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).isRetryable).toBe(true);
    });

    it('should keep the type of an error payload: invalid_api_key is an AuthenticationError', async () => {
      setup.server.setHandler((_req, res) => {
        head(res);
        res.end(data({ error: { message: 'Incorrect API key provided', type: 'invalid_api_key' } }));
      });
      const stream = await setup.client.chat.completions.create(params);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as APIError).isRetryable).toBe(false);
    });
  });

  describe('when one event is larger than maxStreamEventBytes', () => {
    it('should stop the stream with a clear APIError', async () => {
      const small = await createApiTestSetup({ maxStreamEventBytes: 64 * 1024 });
      try {
        small.server.setHandler((_req, res) => {
          head(res);
          res.end(`data: "${'x'.repeat(200 * 1024)}"\n\ndata: [DONE]\n\n`);
        });
        const stream = await small.client.chat.completions.create(params);
        const error = await stream.finalCompletion().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(APIError);
        expect((error as Error).message).toMatch(/maxStreamEventBytes \(65536 bytes\)/);
      } finally {
        await small.close();
      }
    });
  });
});
