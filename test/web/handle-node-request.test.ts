import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { type ChatHandlerOptions, createChatHandler } from '../../src/web/create-chat-handler.js';
import { randomRequest, seededRandom } from '../helpers/fuzz-requests.js';
import { sendRawRequest } from '../helpers/send-raw-request.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
let server: Server | undefined;

/** The README's server: `createServer((req, res) => chat.node(req, res))`, nothing around it. */
async function start(options: Partial<ChatHandlerOptions> = {}) {
  const errors: unknown[] = [];
  const chat = createChatHandler({
    agent: new Agent({ client: env.client, model: 'svc-3.5-flash' }),
    onError: (error) => errors.push(error),
    ...options,
  });
  server = createServer((req, res) => chat.node(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}`, errors, chat };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('createChatHandler on a plain Node server', () => {
  describe('when the request target is no URL path', () => {
    it.each(['//', '///', '//[', '//a%20b', '*'])(
      'should answer %s with a 4xx and keep serving',
      async (target) => {
        const { port } = await start();
        const answer = await sendRawRequest(port, { target });
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        expect((await sendRawRequest(port, { target: '/api/sessions/none' })).status).toBe(404);
      },
    );
  });

  describe('when the Host header makes no URL', () => {
    it('should answer 400 and keep serving', async () => {
      const { port } = await start();
      const answer = await sendRawRequest(port, { target: '/api/sessions/x', headers: { host: 'x:99999' } });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('Host');
      expect((await sendRawRequest(port, { target: '/api/sessions/none' })).status).toBe(404);
    });
  });

  describe('when the handler itself fails', () => {
    it('should end the run with an error event and report the error to onError', async () => {
      const { url, errors } = await start({
        agent: () => {
          throw new Error('agent factory bug');
        },
      });
      const response = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      // The run is accepted before its agent is built (wherever it executes): its stream tells the failure.
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"type":"error"');
      expect(errors).toEqual([expect.objectContaining({ message: 'agent factory bug' })]);
    });
  });

  describe('when a body passes maxBodyBytes', () => {
    it('should answer 413 for a declared length over the limit', async () => {
      const { port } = await start({ maxBodyBytes: 1024 });
      const body = JSON.stringify({ message: 'x'.repeat(2048) });
      const answer = await sendRawRequest(port, { method: 'POST', target: '/api/chat', body });
      expect(answer.status).toBe(413);
      expect(answer.body).toContain('1024 bytes');
    });

    it('should answer 413 for a chunked body once it passes the limit, without reading the rest', async () => {
      const { port } = await start({ maxBodyBytes: 1024 });
      const chunk = 'x'.repeat(600);
      const chunked = `${[chunk, chunk, chunk].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('')}0\r\n\r\n`;
      const answer = await sendRawRequest(port, {
        method: 'POST',
        target: '/api/chat',
        headers: { 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
        body: chunked,
      });
      expect(answer.status).toBe(413);
    });

    it('should answer 413 through the fetch handler too', async () => {
      const chat = createChatHandler({
        agent: new Agent({ client: env.client, model: 'svc-3.5-flash' }),
        maxBodyBytes: 1024,
      });
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(512).fill(32));
        },
      });
      const response = await chat.fetch(
        new Request('http://127.0.0.1/api/chat', { method: 'POST', body, duplex: 'half' } as RequestInit),
      );
      expect(response.status).toBe(413);
    });
  });

  describe('when authorize is given', () => {
    it('should answer 401 before reading the body when it says no', async () => {
      let seen: string | null = null;
      const { port, url } = await start({
        maxBodyBytes: 16,
        authorize: (request) => {
          seen = request.headers.get('authorization');
          return request.headers.get('authorization') === 'Bearer good';
        },
      });
      const refused = await sendRawRequest(port, {
        method: 'POST',
        target: '/api/chat',
        body: JSON.stringify({ message: 'x'.repeat(100) }),
      });
      expect(refused.status).toBe(401);
      expect(seen).toBeNull();
      const allowed = await fetch(`${url}/api/sessions/none`, { headers: { authorization: 'Bearer good' } });
      expect(allowed.status).toBe(404);
    });

    it('should answer the Response it returns', async () => {
      const { url } = await start({
        authorize: () => new Response('go away', { status: 403, headers: { 'x-why': 'test' } }),
      });
      const response = await fetch(`${url}/api/sessions/none`);
      expect(response.status).toBe(403);
      expect(response.headers.get('x-why')).toBe('test');
      expect(await response.text()).toBe('go away');
    });
  });

  describe('when a useChat request holds null messages or parts', () => {
    it.each([
      [{ id: 'c1', messages: [null] }, 'messages[0]'],
      [{ id: 'c1', messages: [{ role: 'user', parts: [null] }] }, 'messages[0].parts[0]'],
      [{ id: 'c1', messages: [{ role: 'assistant', parts: [{ state: 'x', approval: 5 }] }] }, 'parts[0]'],
    ])('should answer 400 naming the field (%j)', async (body, field) => {
      const { url } = await start();
      const response = await fetch(`${url}/api/ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
    });
  });

  describe('when fuzzed with random methods, paths, headers and bodies', () => {
    it('should answer every request without a 500, report no error and keep serving', async () => {
      const { port, errors } = await start();
      const random = seededRandom(24);
      const paths = [
        '/api',
        '/api/chat',
        '/api/ui',
        '/api/runs/r1/approvals',
        '/api/runs/r1/events',
        '/api/sessions/s1',
        '/',
      ];
      for (let i = 0; i < 300; i++) {
        const request = randomRequest(random, paths);
        const { status } = await sendRawRequest(port, request);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeGreaterThanOrEqual(400);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeLessThan(500);
      }
      expect(errors).toEqual([]);
      expect((await sendRawRequest(port, { target: '/api/sessions/none' })).status).toBe(404);
    });
  });
});
