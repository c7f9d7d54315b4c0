import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import { type Emulator, startEmulator } from '../../../src/emulator/index.js';

describe('what openai-node users reach for', () => {
  let emu: Emulator;
  let client: SvcClient;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, parseDelayMs: 20 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  });
  beforeEach(() => emu.reset());
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  describe('when listing models and files', () => {
    it('should iterate them with for await, and still await to { object, data }', async () => {
      const ids: string[] = [];
      for await (const model of client.models.list()) ids.push(model.id);
      expect(ids).toContain('svc-3.5-flash');
      const listed = await client.models.list();
      expect(listed.object).toBe('list');
      expect(listed.data.map((m) => m.id)).toEqual(ids);
      expect(JSON.parse(JSON.stringify(listed))).toEqual({ object: 'list', data: listed.data });

      const uploaded = await client.files.create({
        file: Buffer.from('hello'),
        filename: 'hello.txt',
        purpose: 'file-extract',
      });
      const names: string[] = [];
      for await (const file of client.files.list({ purpose: 'file-extract' })) names.push(file.filename);
      expect(names).toContain('hello.txt');
      expect((await client.files.list()).data.some((f) => f.id === uploaded.id)).toBe(true);
    });

    it('should reject a bad query before any request, awaited or iterated', async () => {
      const iterate = async () => {
        for await (const _ of client.files.list({ purpose: '' as never })) break;
      };
      await expect(iterate()).rejects.toThrow(RequestValidationError);
      expect(emu.requests().filter((r) => r.path.startsWith('/v1/files'))).toHaveLength(0);
    });
  });

  describe('when waiting for a file with waitForProcessing()', () => {
    it('should resolve once the file is ready, as waitUntilReady does', async () => {
      const file = await client.files.create({
        file: Buffer.from('Herons eat fish.'),
        filename: 'herons.txt',
        purpose: 'retrieval-text',
      });
      const ready = await client.files.waitForProcessing(file.id, { pollInterval: 10 });
      expect(ready.status).toBe('success');
    });
  });

  describe('when a stream is awaited with finalChatCompletion()', () => {
    it('should resolve to the accumulated completion', async () => {
      const stream = await client.chat.completions.create({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'Tell me a story' }],
        stream: true,
      });
      const completion = await stream.finalChatCompletion();
      expect(completion.choices[0]?.message.content).toContain('demo model');
    });
  });

  describe('when adding files without descriptions to an image knowledge base', () => {
    it('should refuse before the add request, looking the store type up once', async () => {
      const store = await client.vectorStores.create({ name: 'pictures', type: 'image' });
      const attempt = () => client.vectorStores.files.create(store.id, { files: [{ file_id: 'file-1' }] });
      await expect(attempt()).rejects.toThrow(/files\[0\]\.description/);
      await expect(attempt()).rejects.toThrow(RequestValidationError);
      const calls = emu.requests().filter((r) => r.path.startsWith(`/v1/vector_stores/${store.id}`));
      expect(calls.map((r) => r.method)).toEqual(['GET']);
    });

    it('should use the type given instead of looking it up', async () => {
      await expect(
        client.vectorStores.files.create('123', { files: [{ file_id: 'file-1' }] }, { storeType: 'image' }),
      ).rejects.toThrow(/description/);
      expect(emu.requests()).toHaveLength(0);
    });
  });
});
