import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { callEmulator, upload } from '../helpers/call-emulator.js';
import { eventually } from '../helpers/eventually.js';

interface Page {
  object: string;
  data: Array<{ id: string }>;
  first_id: string;
  last_id: string;
  has_more: boolean;
}

describe('emulator files and vector stores', () => {
  let emu: Emulator;
  const get = (path: string) => callEmulator(emu.baseURL, emu.apiKey, 'GET', path);
  const post = (path: string, body: unknown) => callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body);
  const del = (path: string) => callEmulator(emu.baseURL, emu.apiKey, 'DELETE', path);

  beforeAll(async () => {
    emu = await startEmulator({ parseDelayMs: 50 });
  });
  afterAll(() => emu.close());

  describe('when uploading files', () => {
    it('should answer processed, then success after the parse delay', async () => {
      const res = await upload(emu.baseURL, emu.apiKey, 'hello', 'file-extract', 'a.txt');
      const file = res.json<{ id: string; status: string }>();
      expect(file).toMatchObject({
        object: 'file',
        bytes: 5,
        filename: 'a.txt',
        purpose: 'file-extract',
        status: 'processed',
      });
      expect(file.id).toMatch(/^file-/);
      await eventually(
        async () => (await get(`/v1/files/${file.id}`)).json<{ status: string }>().status === 'success',
      );
      const content = await get(`/v1/files/${file.id}/content`);
      expect(content.text).toBe('hello');
      expect(content.headers['content-type']).toContain('text/plain');
    });

    it('should refuse the content while the file is still processed', async () => {
      const slow = await startEmulator({ parseDelayMs: 60_000 });
      try {
        const file = (await upload(slow.baseURL, slow.apiKey, 'hello', 'file-extract', 'a.txt')).json<{
          id: string;
        }>();
        const early = await callEmulator(slow.baseURL, slow.apiKey, 'GET', `/v1/files/${file.id}/content`);
        expect(early.status).toBe(400);
        expect(early.text).toContain('processed');
        expect(
          (await callEmulator(slow.baseURL, slow.apiKey, 'GET', `/v1/files/${file.id}`)).json(),
        ).toMatchObject({
          status: 'processed',
        });
      } finally {
        await slow.close();
      }
    });

    it('should refuse missing, withdrawn and unknown purposes, and a missing file part', async () => {
      expect((await upload(emu.baseURL, emu.apiKey, 'x', 'retrieval', 'a.txt')).text).toContain('withdrawn');
      expect((await upload(emu.baseURL, emu.apiKey, 'x', 'fun', 'a.txt')).text).toContain('purpose');
      const form = new FormData();
      form.set('purpose', 'storage');
      const res = await fetch(`${emu.baseURL}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.apiKey}` },
        body: form,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          message: 'file: required (a file part)',
          type: 'request_params_invalid',
          code: 'request_params_invalid',
        },
      });
      const json = await post('/v1/files', { purpose: 'storage' });
      expect(json.status).toBe(400);
      expect(json.text).toContain('multipart/form-data');
    });

    it('should refuse a file over the 64 MB limit of its purpose', async () => {
      const big = new Uint8Array(64 * 1024 * 1024 + 1);
      const res = await upload(emu.baseURL, emu.apiKey, big, 'retrieval-text', 'big.txt');
      expect(res.status).toBe(400);
      expect(res.text).toContain('64 MB');
    });

    it('should list by purpose, refuse content of other purposes, delete, and 404 afterwards', async () => {
      const stored = (await upload(emu.baseURL, emu.apiKey, 'bytes', 'storage', 'b.bin')).json<{
        id: string;
      }>();
      const listed = (await get('/v1/files?purpose=storage')).json<Page>();
      expect(listed.object).toBe('list');
      expect(listed.data.map((f) => f.id)).toEqual([stored.id]);
      const content = await get(`/v1/files/${stored.id}/content`);
      expect(content.status).toBe(400);
      expect(content.text).toContain('file-extract');
      expect((await del(`/v1/files/${stored.id}`)).json()).toEqual({
        id: stored.id,
        object: 'file',
        deleted: true,
      });
      for (const res of [await get(`/v1/files/${stored.id}`), await del(`/v1/files/${stored.id}`)]) {
        expect(res.status).toBe(404);
        expect(res.json()).toMatchObject({ error: { type: 'not_found' } });
      }
    });
  });

  describe('when managing vector stores', () => {
    it('should create (id and name only), retrieve with file_counts, list and delete', async () => {
      const created = (await post('/v1/vector_stores', { name: 'kb_one', type: 'text' })).json<{
        id: string;
      }>();
      expect(Object.keys(created).sort()).toEqual(['id', 'name']);
      expect(created.id).toMatch(/^\d{18}$/);
      const store = (await get(`/v1/vector_stores/${created.id}`)).json();
      expect(store).toMatchObject({
        object: 'vector_store',
        name: 'kb_one',
        type: 'text',
        file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
      });
      expect((await get('/v1/vector_stores')).json<Page>().data.map((s) => s.id)).toContain(created.id);
      expect((await del(`/v1/vector_stores/${created.id}`)).json()).toEqual({
        id: created.id,
        deleted: true,
        object: 'vector_store.deleted',
      });
      expect((await get(`/v1/vector_stores/${created.id}`)).status).toBe(404);
    });

    it('should refuse bad names and types naming the field', async () => {
      for (const body of [{ name: '_x' }, { name: 'has space' }, {}, { name: 'ok', type: 'video' }]) {
        const res = await post('/v1/vector_stores', body);
        expect(res.status).toBe(400);
        expect(res.json<{ error: { message: string } }>().error.message).toMatch(/^(name|type):/);
      }
    });

    it('should add files, count them, list with cursors and remove them', async () => {
      const store = (await post('/v1/vector_stores', { name: 'kb_two' })).json<{ id: string }>();
      const ids: string[] = [];
      for (const name of ['1.txt', '2.txt', '3.txt']) {
        ids.push(
          (await upload(emu.baseURL, emu.apiKey, `text ${name}`, 'retrieval-text', name)).json<{
            id: string;
          }>().id,
        );
      }
      const added = await post(`/v1/vector_stores/${store.id}/files`, {
        files: ids.map((file_id, i) => (i === 0 ? { file_id, description: 'first' } : { file_id })),
      });
      expect(added.json()).toEqual({
        files: ids.map((file_id, i) => ({ file_id, metadata: { description: i === 0 ? 'first' : '' } })),
      });
      const counts = (await get(`/v1/vector_stores/${store.id}`)).json<{ file_counts: { total: number } }>();
      expect(counts.file_counts.total).toBe(3);

      const page1 = (await get(`/v1/vector_stores/${store.id}/files?limit=2&order=asc`)).json<Page>();
      expect(page1.data.map((f) => f.id)).toEqual(ids.slice(0, 2));
      expect(page1).toMatchObject({ first_id: ids[0], last_id: ids[1], has_more: true });
      expect(page1.data[0]).toMatchObject({
        object: 'vector_store.file',
        vector_store_id: store.id,
        metadata: { file_name: '1.txt' },
      });
      const page2 = (
        await get(`/v1/vector_stores/${store.id}/files?limit=2&order=asc&after=${page1.last_id}`)
      ).json<Page>();
      expect(page2.data.map((f) => f.id)).toEqual([ids[2]]);
      expect(page2.has_more).toBe(false);
      const desc = (await get(`/v1/vector_stores/${store.id}/files`)).json<Page>();
      expect(desc.data.map((f) => f.id)).toEqual([...ids].reverse());
      const before = (
        await get(`/v1/vector_stores/${store.id}/files?order=asc&before=${ids[2]}&limit=1`)
      ).json<Page>();
      expect(before.data.map((f) => f.id)).toEqual([ids[1]]);
      expect(before.has_more).toBe(true);

      expect((await get(`/v1/vector_stores/${store.id}/files?limit=0`)).status).toBe(400);
      expect((await get(`/v1/vector_stores/${store.id}/files?order=up`)).text).toContain('order');
      expect((await get(`/v1/vector_stores/${store.id}/files?after=nope`)).text).toContain('after');

      expect((await del(`/v1/vector_stores/${store.id}/files/${ids[0]}`)).json()).toEqual({
        id: ids[0],
        deleted: true,
        object: 'vector_store.file.deleted',
      });
      expect((await del(`/v1/vector_stores/${store.id}/files/${ids[0]}`)).status).toBe(404);
    });

    it('should refuse files of the wrong purpose, unknown files and long descriptions', async () => {
      const store = (await post('/v1/vector_stores', { name: 'kb_three' })).json<{ id: string }>();
      const stored = (await upload(emu.baseURL, emu.apiKey, 'x', 'storage', 'x.bin')).json<{ id: string }>();
      const wrong = await post(`/v1/vector_stores/${store.id}/files`, { files: [{ file_id: stored.id }] });
      expect(wrong.status).toBe(400);
      expect(wrong.text).toContain('files[0].file_id');
      expect(
        (await post(`/v1/vector_stores/${store.id}/files`, { files: [{ file_id: 'file-none' }] })).status,
      ).toBe(404);
      const long = await post(`/v1/vector_stores/${store.id}/files`, {
        files: [{ file_id: stored.id, description: 'x'.repeat(256) }],
      });
      expect(long.text).toContain('files[0].description');
      const image = (await post('/v1/vector_stores', { name: 'pics', type: 'image' })).json<{ id: string }>();
      const pic = (await upload(emu.baseURL, emu.apiKey, 'png', 'retrieval-image', 'p.png')).json<{
        id: string;
      }>();
      const noDescription = await post(`/v1/vector_stores/${image.id}/files`, {
        files: [{ file_id: pic.id }],
      });
      expect(noDescription.text).toContain('required for image stores');
      expect((await post('/v1/vector_stores/404/files', { files: [{ file_id: pic.id }] })).status).toBe(404);
    });

    it('should page the store list with cursors', async () => {
      const all = (await get('/v1/vector_stores?limit=100&order=asc')).json<Page>();
      expect(all.data.length).toBeGreaterThan(2);
      const first = (await get('/v1/vector_stores?limit=1&order=asc')).json<Page>();
      const second = (await get(`/v1/vector_stores?limit=1&order=asc&after=${first.last_id}`)).json<Page>();
      expect([first.data[0]?.id, second.data[0]?.id]).toEqual(all.data.slice(0, 2).map((s) => s.id));
    });
  });
});
