import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiTestSetup,
  createApiTestSetup,
  jsonBody,
  requestUrl,
  sendJson,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

describe('VectorStores', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when creating', () => {
    it('should POST /v1/vector_stores with JSON and parse id and name', async () => {
      setup.replyJson({ id: '167907758199320576', name: 'food_calorie' });
      const result = await setup.client.vectorStores.create({ name: 'food_calorie', type: 'text' });
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/vector_stores');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual({ name: 'food_calorie', type: 'text' });
      expect(result).toEqual({ id: '167907758199320576', name: 'food_calorie' });
    });
  });

  describe('when retrieving and deleting', () => {
    it('should GET /v1/vector_stores/{id} and parse file_counts', async () => {
      const store = {
        id: 'vs1',
        object: 'vector_store',
        created_at: 1,
        name: 'kb',
        type: 'text',
        file_counts: { in_progress: 1, completed: 2, failed: 0, cancelled: 0, total: 3 },
      };
      setup.replyJson(store);
      const result = await setup.client.vectorStores.retrieve('vs1');
      expect(setup.onlyRequest().method).toBe('GET');
      expect(setup.onlyRequest().url).toBe('/v1/vector_stores/vs1');
      expect(result.file_counts?.completed).toBe(2);
    });

    it('should DELETE /v1/vector_stores/{id}', async () => {
      setup.replyJson({ id: 'vs1', deleted: true, object: 'vector_store.deleted' });
      const result = await setup.client.vectorStores.delete('vs1');
      expect(setup.onlyRequest().method).toBe('DELETE');
      expect(setup.onlyRequest().url).toBe('/v1/vector_stores/vs1');
      expect(setup.onlyRequest().headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(result.deleted).toBe(true);
    });
  });

  describe('when listing', () => {
    it('should GET /v1/vector_stores with the query and give the first page', async () => {
      setup.replyJson({
        object: 'list',
        data: [{ id: 'vs1', name: 'kb' }],
        first_id: 'vs1',
        last_id: 'vs1',
        has_more: false,
      });
      const page = await setup.client.vectorStores.list({ limit: 10, order: 'asc' });
      const url = requestUrl(setup.onlyRequest());
      expect(setup.onlyRequest().method).toBe('GET');
      expect(url.pathname).toBe('/v1/vector_stores');
      expect(Object.fromEntries(url.searchParams)).toEqual({ limit: '10', order: 'asc' });
      expect(page.data.map((store) => store.id)).toEqual(['vs1']);
      expect(page.hasNextPage()).toBe(false);
    });
  });

  describe('when managing the files of a store', () => {
    it('should POST the files as JSON to /v1/vector_stores/{id}/files', async () => {
      const answer = { files: [{ file_id: 'f1', metadata: { description: 'a cat' } }] };
      setup.replyJson(answer);
      const params = { files: [{ file_id: 'f1', description: 'a cat' }] };
      const result = await setup.client.vectorStores.files.create('vs1', params);
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/vector_stores/vs1/files');
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual(params);
      expect(result).toEqual(answer);
    });

    it('should GET /v1/vector_stores/{id}/files with limit, order, before and after', async () => {
      setup.server.setHandler((_req, res) =>
        sendJson(res, {
          object: 'list',
          data: [{ id: 'f1', object: 'vector_store.file', created_at: 1, vector_store_id: 'vs1' }],
          first_id: 'f1',
          last_id: 'f1',
          has_more: false,
        }),
      );
      const page = await setup.client.vectorStores.files.list('vs1', {
        limit: 5,
        order: 'desc',
        after: 'f0',
      });
      const url = requestUrl(setup.onlyRequest());
      expect(setup.onlyRequest().method).toBe('GET');
      expect(url.pathname).toBe('/v1/vector_stores/vs1/files');
      expect(Object.fromEntries(url.searchParams)).toEqual({ limit: '5', order: 'desc', after: 'f0' });
      expect(page.data[0]?.vector_store_id).toBe('vs1');
    });

    it('should DELETE /v1/vector_stores/{id}/files/{file_id}', async () => {
      setup.replyJson({ id: 'f1', deleted: true, object: 'vector_store.file.deleted' });
      const result = await setup.client.vectorStores.files.delete('vs1', 'f1');
      expect(setup.onlyRequest().method).toBe('DELETE');
      expect(setup.onlyRequest().url).toBe('/v1/vector_stores/vs1/files/f1');
      expect(result).toEqual({ id: 'f1', deleted: true, object: 'vector_store.file.deleted' });
    });
  });
});
