import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { callEmulator, upload } from '../helpers/call-emulator.js';
import { wavOfSeconds } from '../helpers/media-bytes.js';

describe('emulator persistence', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-emulator-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  describe('when restarted with the same data directory', () => {
    it('should keep files, stores with their files, and voices', async () => {
      const first = await startEmulator({ dataDir, parseDelayMs: 0 });
      const text = (
        await upload(
          first.baseURL,
          first.apiKey,
          'Persisted facts about otters.',
          'retrieval-text',
          'otters.txt',
        )
      ).json<{
        id: string;
      }>();
      const audio = (await upload(first.baseURL, first.apiKey, wavOfSeconds(6), 'storage', 'v.wav')).json<{
        id: string;
      }>();
      const store = (
        await callEmulator(first.baseURL, first.apiKey, 'POST', '/v1/vector_stores', { name: 'otters' })
      ).json<{ id: string }>();
      await callEmulator(first.baseURL, first.apiKey, 'POST', `/v1/vector_stores/${store.id}/files`, {
        files: [{ file_id: text.id }],
      });
      const voice = (
        await callEmulator(first.baseURL, first.apiKey, 'POST', '/v1/audio/voices', {
          model: 'svc-tts-2',
          file_id: audio.id,
        })
      ).json<{
        id: string;
      }>();
      const doomed = (await upload(first.baseURL, first.apiKey, 'bye', 'file-extract', 'bye.txt')).json<{
        id: string;
      }>();
      await callEmulator(first.baseURL, first.apiKey, 'DELETE', `/v1/files/${doomed.id}`);
      await first.close();
      expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

      const second = await startEmulator({ dataDir, parseDelayMs: 0 });
      try {
        const get = (path: string) => callEmulator(second.baseURL, second.apiKey, 'GET', path);
        expect((await get(`/v1/files/${text.id}`)).json()).toMatchObject({
          filename: 'otters.txt',
          status: 'success',
        });
        expect((await get(`/v1/files/${doomed.id}`)).status).toBe(404);
        expect((await get(`/v1/vector_stores/${store.id}`)).json()).toMatchObject({
          name: 'otters',
          file_counts: { total: 1 },
        });
        expect(
          (await get('/v1/audio/voices')).json<{ data: Array<{ id: string }> }>().data.map((v) => v.id),
        ).toEqual([voice.id]);
        const again = await callEmulator(second.baseURL, second.apiKey, 'POST', '/v1/audio/voices', {
          model: 'svc-tts-2',
          file_id: audio.id,
        });
        expect(again.json()).toMatchObject({ id: voice.id, duplicated: true });
        const answer = await callEmulator(second.baseURL, second.apiKey, 'POST', '/v1/chat/completions', {
          model: 'svc-3.5-flash',
          messages: [{ role: 'user', content: 'Tell me about otters' }],
          tools: [{ type: 'retrieval', function: { name: 'kb', options: { vector_store_id: store.id } } }],
        });
        expect(answer.text).toContain('otters.txt');
      } finally {
        await second.close();
      }
    });

    it('should write the metadata as one valid JSON document', async () => {
      const emu = await startEmulator({ dataDir });
      await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/vector_stores', { name: 'a' });
      await emu.close();
      const snapshot = JSON.parse(await readFile(join(dataDir, 'state.json'), 'utf8'));
      expect(snapshot).toMatchObject({ version: 1, stores: [expect.objectContaining({ name: 'a' })] });
    });
  });

  describe('when a previous run crashed mid-write', () => {
    it('should drop unacknowledged temporary files and keep what was acknowledged', async () => {
      const first = await startEmulator({ dataDir });
      const store = (
        await callEmulator(first.baseURL, first.apiKey, 'POST', '/v1/vector_stores', { name: 'kept' })
      ).json<{ id: string }>();
      await first.close();
      await writeFile(join(dataDir, 'state.json.123.abcd.tmp'), '{"half":');
      await writeFile(join(dataDir, 'files', 'file-x.123.abcd.tmp'), 'partial');
      const second = await startEmulator({ dataDir });
      try {
        expect(
          (await callEmulator(second.baseURL, second.apiKey, 'GET', `/v1/vector_stores/${store.id}`)).status,
        ).toBe(200);
        expect((await readdir(dataDir)).some((name) => name.endsWith('.tmp'))).toBe(false);
        expect(await readdir(join(dataDir, 'files'))).toEqual([]);
      } finally {
        await second.close();
      }
    });

    it('should refuse a corrupt state file with a clear message', async () => {
      await writeFile(join(dataDir, 'state.json'), '{"version":');
      await expect(startEmulator({ dataDir })).rejects.toThrow(/state\.json is not valid JSON/);
    });
  });

  describe('when started without a data directory', () => {
    it('should keep nothing across restarts', async () => {
      const first = await startEmulator();
      await callEmulator(first.baseURL, first.apiKey, 'POST', '/v1/vector_stores', { name: 'gone' });
      await first.close();
      const second = await startEmulator();
      try {
        expect(
          (await callEmulator(second.baseURL, second.apiKey, 'GET', '/v1/vector_stores')).json(),
        ).toMatchObject({
          data: [],
        });
      } finally {
        await second.close();
      }
    });
  });
});
