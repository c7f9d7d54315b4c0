import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { randomRequest, seededRandom } from '../helpers/fuzz-requests.js';
import { sendRawRequest } from '../helpers/send-raw-request.js';

let emu: Emulator;
let auth: Record<string, string>;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  auth = { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' };
});
beforeEach(() => emu.reset());
afterAll(() => emu?.close());

const chatBody = (extra: object = {}) =>
  JSON.stringify({ model: 'svc-3.5-flash', messages: [{ role: 'user', content: 'hi' }], ...extra });
const injected = JSON.stringify({ answers: [{ message: { content: 'INJECTED' } }] });

/** The content of the next completion, to see whether a script was injected. */
async function nextAnswer(): Promise<string> {
  const response = await fetch(`${emu.baseURL}/v1/chat/completions`, {
    method: 'POST',
    headers: auth,
    body: chatBody(),
  });
  return ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message
    .content;
}

describe('emulator request guards', () => {
  describe('when a control route is called from another site', () => {
    it('should refuse a foreign Host (DNS rebinding) with 403', async () => {
      await fetch(`${emu.baseURL}/v1/models`, { headers: auth });
      const answer = await sendRawRequest(emu.port, {
        target: '/__emulator/requests',
        headers: { host: `attacker.example:${emu.port}` },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('/v1/models');
    });

    it('should refuse a foreign Origin with 403 and queue nothing', async () => {
      const response = await fetch(`${emu.baseURL}/__emulator/script`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://attacker.example' },
        body: injected,
      });
      expect(response.status).toBe(403);
      expect(await nextAnswer()).not.toBe('INJECTED');
    });

    it('should refuse a text/plain body (a form or no-preflight fetch) with 415 and queue nothing', async () => {
      const answer = await sendRawRequest(emu.port, {
        method: 'POST',
        target: '/__emulator/script',
        headers: { 'content-type': 'text/plain' },
        body: injected,
      });
      expect(answer.status).toBe(415);
      expect(await nextAnswer()).not.toBe('INJECTED');
    });

    it('should still take a local JSON script', async () => {
      const response = await fetch(`${emu.baseURL}/__emulator/script`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: injected,
      });
      expect(response.status).toBe(200);
      expect(await nextAnswer()).toBe('INJECTED');
    });
  });

  describe('when a request has no valid key', () => {
    it('should answer 401 from the headers, without waiting for a 120 MB body', async () => {
      const answer = await sendRawRequest(emu.port, {
        method: 'POST',
        target: '/v1/files',
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(120 * 1024 * 1024),
        },
        body: '--x\r\n',
      });
      expect(answer.status).toBe(401);
    });
  });

  describe('when a body passes the cap', () => {
    it('should answer 413 from the declared length, without reading the body', async () => {
      const answer = await sendRawRequest(emu.port, {
        method: 'POST',
        target: '/v1/chat/completions',
        headers: { ...auth, 'content-length': String(64 * 1024 * 1024) },
        body: '{',
      });
      expect(answer.status).toBe(413);
    });
  });

  describe('when a json_schema nests deeply or refers to itself', () => {
    let deep: object = { type: 'string' };
    for (let i = 0; i < 150; i++) deep = { type: 'object', properties: { a: deep } };
    it.each([
      ['150 levels deep', deep],
      ['a $ref to the root', { type: 'object', properties: { a: { $ref: '#' } }, required: ['a'] }],
      ['a $ref cycle', { $ref: '#/definitions/a', definitions: { a: { $ref: '#/definitions/a' } } }],
    ])('should answer 400 for %s and keep the request log readable', async (_name, schema) => {
      const response = await fetch(`${emu.baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: chatBody({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }),
      });
      expect(response.status).toBe(400);
      expect((await fetch(`${emu.baseURL}/__emulator/requests`)).status).toBe(200);
    });
  });

  describe('when a path holds bad percent-encoding', () => {
    it.each(['/v1/files/%E0%A4%A', '/v1/models/%zz', '/v1/vector_stores/%/files'])(
      'should answer 400 for %s',
      async (target) => {
        const answer = await sendRawRequest(emu.port, { target, headers: auth });
        expect(answer.status).toBe(400);
      },
    );
  });

  describe('when fuzzed with random methods, paths, headers and bodies', () => {
    it('should answer every request without a 500 and keep serving', async () => {
      const random = seededRandom(7);
      const paths = [
        '/v1/chat/completions',
        '/v1/token/count',
        '/v1/messages',
        '/v1/models',
        '/v1/models/x',
        '/v1/files',
        '/v1/files/f1/content',
        '/v1/vector_stores',
        '/v1/vector_stores/vs/files',
        '/v1/images/generations',
        '/v1/audio/voices',
        '/svc_plan/v1/chat/completions',
        '/__emulator/script',
        '/__emulator/faults',
        '/__emulator/requests',
        '/__emulator/images/ab.png',
      ];
      for (let i = 0; i < 300; i++) {
        const request = randomRequest(random, paths);
        if (random() < 0.8) request.headers = { ...request.headers, authorization: `Bearer ${emu.apiKey}` };
        const { status } = await sendRawRequest(emu.port, request);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeLessThan(500);
      }
      expect((await fetch(`${emu.baseURL}/__emulator/requests`)).status).toBe(200);
      expect(await nextAnswer()).toEqual(expect.any(String));
    });
  });
});
