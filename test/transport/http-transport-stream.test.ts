import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  BadRequestError,
} from '../../src/core/errors.js';
import type { SseResponse } from '../../src/transport/http-request.js';
import { HttpTransport } from '../../src/transport/http-transport.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

const apiKey = 'sk-stream-secret-987654321';

let server: HttpTestServer;
let transport: HttpTransport;

function sseHead(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

async function collect(response: SseResponse): Promise<string[]> {
  const events: string[] = [];
  for await (const event of response.events) events.push(event);
  return events;
}

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

beforeEach(async () => {
  server = await createHttpTestServer();
  transport = new HttpTransport({ apiKey, baseURL: server.url, maxRetries: 2 });
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

describe('HttpTransport.stream', () => {
  describe('when the server streams events in odd pieces', () => {
    it('should yield each data payload once, stop at [DONE] and expose the trace id', async () => {
      server.setHandler(async (_req, res) => {
        sseHead(res, { 'x-trace-id': 'trace-stream' });
        const text = 'data: {"n":1}\n\n: ping\n\ndata: {"n":"é世\r\n\r\ndata: {"n":3}\n\ndata: [DONE]\n\n';
        const bytes = Buffer.from(text.replace('"é世', '"é世"}'));
        for (let i = 0; i < bytes.length; i += 7) {
          res.write(bytes.subarray(i, i + 7));
          // Bytes arrive in separate TCP writes, splitting multi-byte characters across chunks.
          await sleep(1);
        }
        res.end();
      });
      const response = await transport.stream({
        method: 'POST',
        path: '/v1/chat/completions',
        body: { stream: true },
      });
      expect(response.requestId).toBe('trace-stream');
      expect(await collect(response)).toEqual(['{"n":1}', '{"n":"é世"}', '{"n":3}']);
      expect(server.requests[0]?.headers.accept).toBe('text/event-stream');
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    });
  });

  describe('when the server writes far faster than the consumer reads', () => {
    it('should hold the socket back and still deliver every event in order', async () => {
      const count = 5000;
      server.setHandler(async (_req, res) => {
        sseHead(res);
        let text = '';
        for (let n = 0; n < count; n++) text += `data: {"n":${n}}\n\n`;
        res.end(`${text}data: [DONE]\n\n`);
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/chat/completions', body: {} });
      const seen: number[] = [];
      for await (const event of response.events) {
        seen.push((JSON.parse(event) as { n: number }).n);
        // A slow consumer: the handler must pause undici past its high-water mark and resume on the next read.
        if (seen.length % 1000 === 0) await sleep(20);
      }
      expect(seen).toEqual(Array.from({ length: count }, (_, n) => n));
    });
  });

  describe('when the stream request gets an error status', () => {
    it('should throw the typed error without retrying a 400', async () => {
      server.setHandler((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"Unrecognized chat message.","type":"request_params_invalid"}}');
      });
      const error = await caught(() =>
        transport.stream({ method: 'POST', path: '/v1/chat/completions', body: {} }),
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as Error).message).toBe('400 request_params_invalid: Unrecognized chat message.');
      expect(server.requests).toHaveLength(1);
    });

    it('should retry a 503 before the first byte and then stream', async () => {
      server.setHandler((_req, res) => {
        if (server.requests.length === 1) {
          res.writeHead(503, { 'retry-after-ms': '20' }).end('overloaded');
          return;
        }
        sseHead(res);
        res.end('data: ok\n\ndata: [DONE]\n\n');
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/chat/completions', body: {} });
      expect(await collect(response)).toEqual(['ok']);
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('when the connection is cut after the first byte', () => {
    it('should surface APIConnectionError from the events and never replay the request', async () => {
      server.setHandler(async (req, res) => {
        sseHead(res);
        res.write('data: {"n":1}\n\n');
        // A pause mid-stream, before the server cuts the connection.
        await sleep(30);
        req.socket.destroy();
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/chat/completions', body: {} });
      const seen: string[] = [];
      const error = await caught(async () => {
        for await (const event of response.events) seen.push(event);
      });
      expect(seen).toEqual(['{"n":1}']);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toMatch(/^Stream interrupted: /);
      expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(apiKey);
      expect(JSON.stringify(error)).not.toContain(apiKey);
      // Waiting for nothing to happen: a stream cut after its first byte must never be sent again.
      await sleep(100);
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('when the caller aborts a running stream', () => {
    it('should end a pending read at once with APIUserAbortError (signal)', async () => {
      server.setHandler((_req, res) => {
        sseHead(res);
        res.write('data: first\n\n');
        // Then silence: only the abort can end the read.
      });
      const controller = new AbortController();
      const response = await transport.stream({
        method: 'POST',
        path: '/v1/x',
        body: {},
        signal: controller.signal,
      });
      const seen: string[] = [];
      const started = performance.now();
      const error = await caught(async () => {
        for await (const event of response.events) {
          seen.push(event);
          setTimeout(() => controller.abort(), 50);
        }
      });
      expect(seen).toEqual(['first']);
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(performance.now() - started).toBeLessThan(1000);
    });

    it('should end a pending read at once with APIUserAbortError (abort())', async () => {
      server.setHandler((_req, res) => {
        sseHead(res);
        res.write('data: first\n\n');
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/x', body: {} });
      const iterator = response.events[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: 'first' });
      const pending = iterator.next();
      setTimeout(() => response.abort(), 20);
      await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });

  describe('when the generation outlasts the timeout', () => {
    it('should not cut a stream whose head arrived in time', async () => {
      server.setHandler(async (_req, res) => {
        sseHead(res);
        for (let i = 0; i < 4; i++) {
          res.write(`data: ${i}\n\n`);
          // 240 ms of generation in all, past the 100 ms timeout that only the head must meet.
          await sleep(60);
        }
        res.end('data: [DONE]\n\n');
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/x', body: {}, timeout: 100 });
      expect(await collect(response)).toEqual(['0', '1', '2', '3']);
    });

    it('should throw APITimeoutError when the head does not arrive in time', async () => {
      server.setHandler(() => {});
      const error = await caught(() =>
        transport.stream({ method: 'POST', path: '/v1/x', body: {}, timeout: 80, maxRetries: 0 }),
      );
      expect(error).toBeInstanceOf(APITimeoutError);
    });
  });

  describe('when the consumer stops early', () => {
    it('should release the connection so later requests still work', async () => {
      server.setHandler((req, res) => {
        if (req.url === '/v1/models') {
          res.end('{"ok":true}');
          return;
        }
        sseHead(res);
        res.write('data: a\n\ndata: b\n\n');
      });
      const response = await transport.stream({ method: 'POST', path: '/v1/x', body: {} });
      for await (const event of response.events) {
        expect(event).toBe('a');
        break;
      }
      expect(await transport.request({ method: 'GET', path: '/v1/models' })).toEqual({ ok: true });
    });
  });
});
