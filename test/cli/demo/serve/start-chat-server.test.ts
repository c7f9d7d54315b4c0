import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../../../src/api/svc-client.js';
import { maxUploadBytes } from '../../../../src/cli/demo/serve/knowledge-uploads.js';
import { createServeAgent } from '../../../../src/cli/demo/serve/serve-agent.js';
import { type ChatServer, startChatServer } from '../../../../src/cli/demo/serve/start-chat-server.js';
import { startEmulator } from '../../../../src/emulator/index.js';
import type { Emulator } from '../../../../src/emulator/types.js';
import { randomRequest, seededRandom } from '../../../helpers/fuzz-requests.js';
import { sendRawRequest } from '../../../helpers/send-raw-request.js';

let emu: Emulator;
let client: SvcClient;
let server: ChatServer;
let port: number;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  server = await startChatServer({
    client,
    port: 0,
    agent: createServeAgent({ model: 'svc-3.5-flash', tools: [], instructions: 'Answer briefly.' }),
  });
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  await server?.close();
  await client?.close();
  await emu?.close();
});

describe('startChatServer', () => {
  describe('when the request target is no URL path', () => {
    it.each(['//', '///', '//[', '//a%20b', '*'])(
      'should answer %s with a 4xx and keep serving',
      async (target) => {
        const { status } = await sendRawRequest(port, { target });
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
        expect((await sendRawRequest(port, { target: '/' })).status).toBe(200);
      },
    );
  });

  describe('when the page is served', () => {
    it('should send a Content-Security-Policy that allows only its own origin to frame it', async () => {
      const response = await fetch(server.url);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("frame-ancestors 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("default-src 'self'");
    });
  });

  describe('when a POST comes from a page of another origin', () => {
    const post = (origin: string, url = server.url) =>
      fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Hello' }),
      });

    it('should refuse it with 403 naming --allow-origin', async () => {
      const answer = await post('http://localhost:5173');
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain('--allow-origin');
    });

    it('should accept it from an allowed origin (a dev proxy that rewrites Host) and still refuse others', async () => {
      const allowing = await startChatServer({
        client,
        port: 0,
        allowedOrigins: ['http://localhost:5173'],
        agent: createServeAgent({ model: 'svc-3.5-flash', tools: [], instructions: 'Answer briefly.' }),
      });
      try {
        const allowed = await post('http://localhost:5173', allowing.url);
        expect(allowed.status).toBe(200);
        expect(await allowed.text()).toContain('"type":"finish"');
        expect((await post('http://localhost:5174', allowing.url)).status).toBe(403);
        expect((await post('http://evil.example', allowing.url)).status).toBe(403);
      } finally {
        await allowing.close();
      }
    });

    it.each(['localhost:5173', 'http://localhost:5173/', 'http://localhost:5173/app', 'ftp://localhost'])(
      'should refuse the option %s with an error naming it, before listening',
      async (origin) => {
        const starting = startChatServer({
          client,
          port: 0,
          allowedOrigins: [origin],
          agent: createServeAgent({ model: 'svc-3.5-flash', tools: [], instructions: 'Answer briefly.' }),
        });
        await expect(starting).rejects.toThrow(/allowedOrigins\[0\]: .*must be an origin/);
      },
    );
  });

  describe('when an upload passes the size limit', () => {
    it('should answer 413 from the declared length, before reading the body', async () => {
      const answer = await sendRawRequest(port, {
        method: 'POST',
        target: '/api/files?sessionId=s1&name=big.txt',
        headers: { 'content-length': String(maxUploadBytes + 1) },
        body: 'only the start of it',
      });
      expect(answer.status).toBe(413);
    });

    it('should answer 413 to a chunked body once it passes the limit', async () => {
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      const head = `${chunk.length.toString(16)}\r\n`;
      const body = Buffer.concat(
        Array.from({ length: 11 }, () =>
          Buffer.concat([Buffer.from(head), chunk, Buffer.from('\r\n')]),
        ).concat(Buffer.from('0\r\n\r\n')),
      );
      const answer = await sendRawRequest(port, {
        method: 'POST',
        target: '/api/files?sessionId=s1&name=big.txt',
        headers: { 'transfer-encoding': 'chunked' },
        body,
      });
      expect(answer.status).toBe(413);
      expect((await sendRawRequest(port, { target: '/' })).status).toBe(200);
    });
  });

  describe('when fuzzed with random methods, paths, headers and bodies', () => {
    it('should answer every request without a 500 and keep serving', async () => {
      const random = seededRandom(20_261_125);
      const paths = [
        '/',
        '/app.js',
        '/api/chat',
        '/api/ui',
        '/api/ui/s1/stream',
        '/api/ui/s1/messages',
        '/api/files',
        '/api/runs/r1/approvals',
        '/api/runs/r1/events',
        '/api/sessions/s1',
        '/x',
      ];
      for (let i = 0; i < 300; i++) {
        const request = randomRequest(random, paths);
        const answer = await sendRawRequest(port, request);
        expect(answer.status, JSON.stringify(request).slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(answer.status, JSON.stringify(request).slice(0, 300)).toBeLessThan(500);
      }
      expect((await sendRawRequest(port, { target: '/' })).status).toBe(200);
    });
  });
});
