import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SvcClient } from '../../../src/api/svc-client.js';
import {
  type ApiTestSetup,
  createApiTestSetup,
  jsonBody,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

const user = [{ role: 'user' as const, content: 'Hi' }];

/** Every JSON operation: how to call it, and the method, URL and body the server must receive. */
const operations: Array<[string, (client: SvcClient) => Promise<unknown>, string, string, unknown]> = [
  [
    'chat.completions.create',
    (c) => c.chat.completions.create({ model: 'svc-3.5-flash', messages: user }),
    'POST',
    '/v1/chat/completions',
    { model: 'svc-3.5-flash', messages: user },
  ],
  [
    'plan.chat.completions.create',
    (c) => c.plan.chat.completions.create({ model: 'svc-router-v1', messages: user }),
    'POST',
    '/svc_plan/v1/chat/completions',
    { model: 'svc-router-v1', messages: user },
  ],
  [
    'tokens.count',
    (c) => c.tokens.count({ model: 'svc-3.5-flash', messages: user }),
    'POST',
    '/v1/token/count',
    { model: 'svc-3.5-flash', messages: user },
  ],
  [
    'messages.countTokens',
    (c) => c.messages.countTokens({ model: 'svc-3.5-flash', messages: user }),
    'POST',
    '/v1/messages/count_tokens',
    { model: 'svc-3.5-flash', messages: user },
  ],
  [
    'plan.messages.countTokens',
    (c) => c.plan.messages.countTokens({ model: 'svc-router-v1', messages: user }),
    'POST',
    '/svc_plan/v1/messages/count_tokens',
    { model: 'svc-router-v1', messages: user },
  ],
  ['models.list', async (c) => c.models.list(), 'GET', '/v1/models', undefined],
  [
    'models.retrieve',
    (c) => c.models.retrieve('svc-3.5-flash'),
    'GET',
    '/v1/models/svc-3.5-flash',
    undefined,
  ],
  [
    'files.list',
    async (c) => c.files.list({ purpose: 'storage' }),
    'GET',
    '/v1/files?purpose=storage',
    undefined,
  ],
  ['files.retrieve', (c) => c.files.retrieve('file-1'), 'GET', '/v1/files/file-1', undefined],
  ['files.delete', (c) => c.files.delete('file-1'), 'DELETE', '/v1/files/file-1', undefined],
  [
    'vectorStores.create',
    (c) => c.vectorStores.create({ name: 'kb_1' }),
    'POST',
    '/v1/vector_stores',
    { name: 'kb_1' },
  ],
  [
    'vectorStores.retrieve',
    (c) => c.vectorStores.retrieve('vs 1'),
    'GET',
    '/v1/vector_stores/vs%201',
    undefined,
  ],
  [
    'vectorStores.list',
    async (c) => c.vectorStores.list({ limit: 2 }),
    'GET',
    '/v1/vector_stores?limit=2',
    undefined,
  ],
  ['vectorStores.delete', (c) => c.vectorStores.delete('vs1'), 'DELETE', '/v1/vector_stores/vs1', undefined],
  [
    'vectorStores.files.create',
    // With the store type given, the client need not look it up first: one request.
    (c) => c.vectorStores.files.create('vs1', { files: [{ file_id: 'f1' }] }, { storeType: 'text' }),
    'POST',
    '/v1/vector_stores/vs1/files',
    { files: [{ file_id: 'f1' }] },
  ],
  [
    'vectorStores.files.list',
    async (c) => c.vectorStores.files.list('vs1', { order: 'asc' }),
    'GET',
    '/v1/vector_stores/vs1/files?order=asc',
    undefined,
  ],
  [
    'vectorStores.files.delete',
    (c) => c.vectorStores.files.delete('vs1', 'f1'),
    'DELETE',
    '/v1/vector_stores/vs1/files/f1',
    undefined,
  ],
  [
    'audio.voices.create',
    (c) => c.audio.voices.create({ model: 'svc-tts-mini', file_id: 'f1' }),
    'POST',
    '/v1/audio/voices',
    { model: 'svc-tts-mini', file_id: 'f1' },
  ],
  [
    'audio.voices.list',
    async (c) => c.audio.voices.list({ before: 'voice-9' }),
    'GET',
    '/v1/audio/voices?before=voice-9',
    undefined,
  ],
  [
    'images.generate',
    (c) => c.images.generate({ model: 'svc-1x-medium', prompt: 'a fox' }),
    'POST',
    '/v1/images/generations',
    { model: 'svc-1x-medium', prompt: 'a fox' },
  ],
];

describe('SvcClient operations', () => {
  let setup: ApiTestSetup;
  const answer = { object: 'list', data: [], has_more: false, id: 'x', echoed: true };
  beforeAll(async () => {
    setup = await createApiTestSetup({ defaultHeaders: { 'x-app': 'tests' } });
    setup.replyJson(answer);
  });
  beforeEach(() => {
    setup.server.requests.length = 0;
  });
  afterAll(() => setup.close());

  describe.each(operations)('when calling %s', (_name, call, method, url, body) => {
    it(`should send ${method} ${url} with auth, the default headers and the body, and parse the answer`, async () => {
      const result = await call(setup.client);
      const request = setup.onlyRequest();
      expect(request.method).toBe(method);
      expect(request.url).toBe(url);
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['x-app']).toBe('tests');
      if (body === undefined) {
        expect(request.body.length).toBe(0);
        expect(request.headers['content-type']).toBeUndefined();
      } else {
        expect(request.headers['content-type']).toMatch(/^application\/json/);
        expect(jsonBody(request)).toEqual(body);
      }
      expect(result).toMatchObject({ data: [] });
    });
  });
});
