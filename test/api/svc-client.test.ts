import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { AuthenticationError, ConfigurationError } from '../../src/core/errors.js';
import { sendJson, testApiKey } from '../helpers/create-api-test-setup.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

describe('SvcClient', () => {
  let server: HttpTestServer;
  beforeAll(async () => {
    server = await createHttpTestServer((_req, res) => sendJson(res, { object: 'list', data: [] }));
  });
  afterAll(() => server.close());

  describe('when the base URL ends with / or /v1', () => {
    it.each(['', '/', '/v1', '/v1/'])('should send /v1/models once for baseURL + "%s"', async (suffix) => {
      server.requests.length = 0;
      const client = new SvcClient({ apiKey: testApiKey, baseURL: `${server.url}${suffix}` });
      try {
        await client.models.list();
        await client.plan.messages.countTokens({
          model: 'svc-router-v1',
          messages: [{ role: 'user', content: 'x' }],
        });
        expect(server.requests.map((request) => request.url)).toEqual([
          '/v1/models',
          '/svc_plan/v1/messages/count_tokens',
        ]);
        expect(client.baseURL).toBe(server.url);
      } finally {
        await client.close();
      }
    });
  });

  describe('when options come from the environment', () => {
    it('should read SVC_API_KEY and SVC_BASE_URL', async () => {
      const saved = { key: process.env.SVC_API_KEY, url: process.env.SVC_BASE_URL };
      process.env.SVC_API_KEY = 'sk-from-env-000000';
      process.env.SVC_BASE_URL = server.url;
      server.requests.length = 0;
      const client = new SvcClient();
      try {
        await client.models.list();
        expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-env-000000');
      } finally {
        await client.close();
        for (const [name, value] of [
          ['SVC_API_KEY', saved.key],
          ['SVC_BASE_URL', saved.url],
        ] as const) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    });

    it('should name the variable to set when the key is missing', () => {
      const saved = process.env.SVC_API_KEY;
      delete process.env.SVC_API_KEY;
      try {
        expect(() => new SvcClient({ baseURL: server.url })).toThrow(ConfigurationError);
        expect(() => new SvcClient({ baseURL: server.url })).toThrow(/SVC_API_KEY/);
      } finally {
        if (saved !== undefined) process.env.SVC_API_KEY = saved;
      }
    });
  });

  describe('when the client is logged', () => {
    it('should never show the API key in util.inspect or JSON.stringify', async () => {
      const client = new SvcClient({ apiKey: testApiKey, baseURL: server.url });
      try {
        for (const text of [
          inspect(client, { depth: Infinity, showHidden: true }),
          inspect(client.chat.completions, { depth: Infinity, showHidden: true }),
          inspect(client.transport, { depth: Infinity, showHidden: true }),
          JSON.stringify(client),
          JSON.stringify(client.files),
          String(client),
        ]) {
          expect(text).not.toContain(testApiKey);
        }
        expect(inspect(client)).toContain(server.url);
      } finally {
        await client.close();
      }
    });

    it('should keep the key out of an authentication error that echoes it', async () => {
      const echo = await createHttpTestServer((req, res) =>
        sendJson(
          res,
          { error: { message: `Incorrect API key ${req.headers.authorization}`, type: 'invalid_api_key' } },
          401,
        ),
      );
      const client = new SvcClient({ apiKey: testApiKey, baseURL: echo.url, maxRetries: 0 });
      try {
        const error = await client.models.list().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(`${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`).not.toContain(
          testApiKey,
        );
      } finally {
        await client.close();
        await echo.close();
      }
    });
  });
});
