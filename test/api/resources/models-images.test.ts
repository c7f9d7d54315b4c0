import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiTestSetup,
  createApiTestSetup,
  jsonBody,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

const model = { id: 'svc-3.5-flash', object: 'model', created: 1_700_000_000, owned_by: 'owner' };

describe('Models', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when listing', () => {
    it('should GET /v1/models and parse the list', async () => {
      setup.replyJson({ object: 'list', data: [model] });
      const result = await setup.client.models.list();
      const request = setup.onlyRequest();
      expect(request.method).toBe('GET');
      expect(request.url).toBe('/v1/models');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.body.length).toBe(0);
      expect(result.data[0]?.owned_by).toBe('owner');
    });
  });

  describe('when retrieving', () => {
    it('should GET /v1/models/{model} with the id encoded', async () => {
      setup.replyJson(model);
      const result = await setup.client.models.retrieve('svc-3.5-flash');
      expect(setup.onlyRequest().method).toBe('GET');
      expect(setup.onlyRequest().url).toBe('/v1/models/svc-3.5-flash');
      expect(result).toEqual(model);
    });

    it('should refuse an empty id before any network call', async () => {
      await expect(setup.client.models.retrieve('')).rejects.toThrow(/^model: must not be empty$/);
      expect(setup.server.requests).toHaveLength(0);
    });
  });
});

describe('Images', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when generating', () => {
    it('should POST /v1/images/generations and parse the items', async () => {
      const answer = {
        created: 1_700_000_000,
        data: [{ seed: 42, finish_reason: 'success', url: 'https://x/y.png' }],
      };
      setup.replyJson(answer);
      const params = { model: 'svc-1x-medium', prompt: 'a red fox', size: '512x512' as const, steps: 20 };
      const result = await setup.client.images.generate(params);
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/images/generations');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual(params);
      expect(result).toEqual(answer);
    });
  });
});
