import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import {
  type ApiTestSetup,
  createApiTestSetup,
  requestUrl,
  sendJson,
} from '../../helpers/create-api-test-setup.js';

/** Nine files served three per page, newest cursor logic as the service does: `after` = last id seen. */
const allFiles = Array.from({ length: 9 }, (_, i) => ({
  id: `file-${i + 1}`,
  object: 'vector_store.file',
  created_at: i,
  vector_store_id: 'vs1',
}));

describe('PagePromise', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
    setup.server.setHandler((req, res) => {
      const url = requestUrl(req);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const after = url.searchParams.get('after');
      const start = after ? allFiles.findIndex((file) => file.id === after) + 1 : 0;
      const data = allFiles.slice(start, start + limit);
      sendJson(res, {
        object: 'list',
        data,
        first_id: data[0]?.id,
        last_id: data.at(-1)?.id,
        has_more: start + limit < allFiles.length,
      });
    });
  });
  afterEach(() => setup.close());

  describe('when awaited', () => {
    it('should give the first page with its cursors and fetch the next with after = last_id', async () => {
      const page = await setup.client.vectorStores.files.list('vs1', { limit: 3, order: 'asc' });
      expect(page.data.map((file) => file.id)).toEqual(['file-1', 'file-2', 'file-3']);
      expect([page.first_id, page.last_id, page.has_more]).toEqual(['file-1', 'file-3', true]);
      expect(page.hasNextPage()).toBe(true);
      const next = await page.nextPage();
      expect(next.data.map((file) => file.id)).toEqual(['file-4', 'file-5', 'file-6']);
      const query = Object.fromEntries(requestUrl(setup.server.requests[1]!).searchParams);
      expect(query).toEqual({ limit: '3', order: 'asc', after: 'file-3' });
    });
  });

  describe('when iterated with for await', () => {
    it('should yield every item of all three pages, one request per page', async () => {
      const ids: string[] = [];
      for await (const file of setup.client.vectorStores.files.list('vs1', { limit: 3 })) ids.push(file.id);
      expect(ids).toEqual(allFiles.map((file) => file.id));
      expect(setup.server.requests.map((request) => requestUrl(request).searchParams.get('after'))).toEqual([
        null,
        'file-3',
        'file-6',
      ]);
    });

    it('should stop at a page that says has_more but carries no items', async () => {
      setup.server.setHandler((_req, res) =>
        sendJson(res, { object: 'list', data: [], first_id: null, last_id: null, has_more: true }),
      );
      const items: unknown[] = [];
      for await (const item of setup.client.audio.voices.list()) items.push(item);
      expect(items).toEqual([]);
      expect(setup.server.requests).toHaveLength(1);
    });
  });

  describe('when the query breaks a rule', () => {
    it('should reject before any request', async () => {
      await expect(setup.client.vectorStores.list({ limit: 0 })).rejects.toBeInstanceOf(
        RequestValidationError,
      );
      expect(setup.server.requests).toHaveLength(0);
    });
  });
});
