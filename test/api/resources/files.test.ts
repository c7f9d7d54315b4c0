import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileProcessingError, RequestValidationError } from '../../../src/api/errors.js';
import type { FileObject } from '../../../src/api/types/files.js';
import { APIUserAbortError } from '../../../src/core/errors.js';
import {
  type ApiTestSetup,
  createApiTestSetup,
  requestUrl,
  sendJson,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';
import type { ReceivedRequest } from '../../helpers/create-http-test-server.js';

function createFile(overrides: Partial<FileObject> = {}): FileObject {
  return {
    id: 'file-abc123',
    object: 'file',
    bytes: 11,
    created_at: 1_613_779_121,
    filename: 'notes.txt',
    purpose: 'file-extract',
    status: 'processed',
    ...overrides,
  };
}

/** Parses the multipart body exactly as the server received it. */
async function receivedForm(request: ReceivedRequest): Promise<FormData> {
  const contentType = request.headers['content-type'] ?? '';
  expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
  return new Response(new Uint8Array(request.body), { headers: { 'content-type': contentType } }).formData();
}

describe('Files', () => {
  let setup: ApiTestSetup;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-files-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when uploading', () => {
    const cases: Array<[string, () => Promise<unknown> | unknown, string | undefined]> = [
      [
        'a path',
        async () => writeFile(join(dir, 'notes.txt'), 'hello world').then(() => join(dir, 'notes.txt')),
        undefined,
      ],
      ['a Buffer with a filename', () => Buffer.from('hello world'), 'notes.txt'],
      ['a Uint8Array with a filename', () => new TextEncoder().encode('hello world'), 'notes.txt'],
      ['a File', () => new File(['hello world'], 'notes.txt'), undefined],
      [
        'a Node stream with a filename',
        () => Readable.from([Buffer.from('hello '), Buffer.from('world')]),
        'notes.txt',
      ],
      ['a web stream with a filename', () => new Blob(['hello world']).stream(), 'notes.txt'],
    ];

    for (const [label, makeFile, filename] of cases) {
      it(`should send ${label} as multipart fields purpose and file`, async () => {
        setup.replyJson(createFile());
        const file = (await makeFile()) as never;
        const result = await setup.client.files.upload(
          filename ? { file, purpose: 'file-extract', filename } : { file, purpose: 'file-extract' },
        );
        const request = setup.onlyRequest();
        expect(request.method).toBe('POST');
        expect(request.url).toBe('/v1/files');
        expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
        const form = await receivedForm(request);
        expect(form.get('purpose')).toBe('file-extract');
        const sent = form.get('file') as File;
        expect(sent.name).toBe('notes.txt');
        expect(await sent.text()).toBe('hello world');
        expect(result).toEqual(createFile());
      });
    }

    it('should name a path it cannot open before any request', async () => {
      const error = await setup.client.files
        .upload({ file: join(dir, 'missing.pdf'), purpose: 'file-extract' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toMatch(/^file: cannot open ".*missing\.pdf" \(ENOENT\)$/);
      expect(setup.server.requests).toHaveLength(0);
    });

    it('should send a remote url instead of a file', async () => {
      setup.replyJson(createFile());
      await setup.client.files.upload({ url: 'https://example.com/a.pdf', purpose: 'file-extract' });
      const form = await receivedForm(setup.onlyRequest());
      expect(form.get('url')).toBe('https://example.com/a.pdf');
      expect(form.get('file')).toBeNull();
    });

    it('should refuse bytes without a filename before any request', async () => {
      const error = await setup.client.files
        .upload({ file: Buffer.from('x'), purpose: 'storage' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toMatch(/^filename: required/);
      expect(setup.server.requests).toHaveLength(0);
    });

    it('should refuse the withdrawn purpose "retrieval" before any request', async () => {
      const error = await setup.client.files
        .upload({ file: Buffer.from('x'), filename: 'a.txt', purpose: 'retrieval' as never })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toContain('purpose');
      expect(setup.server.requests).toHaveLength(0);
    });
  });

  describe('when reading and deleting', () => {
    it('should GET /v1/files with the purpose filter', async () => {
      setup.replyJson({ object: 'list', data: [createFile()] });
      const result = await setup.client.files.list({ purpose: 'storage' });
      const url = requestUrl(setup.onlyRequest());
      expect(setup.onlyRequest().method).toBe('GET');
      expect(url.pathname).toBe('/v1/files');
      expect(url.searchParams.get('purpose')).toBe('storage');
      expect(result.data).toEqual([createFile()]);
    });

    it('should GET /v1/files without a query when no purpose is given', async () => {
      setup.replyJson({ object: 'list', data: [] });
      await setup.client.files.list();
      expect(setup.onlyRequest().url).toBe('/v1/files');
    });

    it('should GET /v1/files/{id}', async () => {
      setup.replyJson(createFile({ status: 'success' }));
      const result = await setup.client.files.retrieve('file-abc123');
      expect(setup.onlyRequest().method).toBe('GET');
      expect(setup.onlyRequest().url).toBe('/v1/files/file-abc123');
      expect(setup.onlyRequest().headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(result.status).toBe('success');
    });

    it('should GET /v1/files/{id}/content as text', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('{"not":"parsed"} plain text');
      });
      const text = await setup.client.files.content('file-abc123');
      expect(setup.onlyRequest().url).toBe('/v1/files/file-abc123/content');
      expect(text).toBe('{"not":"parsed"} plain text');
    });

    it('should DELETE /v1/files/{id}', async () => {
      setup.replyJson({ id: 'file-abc123', object: 'file', deleted: true });
      const result = await setup.client.files.delete('file-abc123');
      expect(setup.onlyRequest().method).toBe('DELETE');
      expect(setup.onlyRequest().url).toBe('/v1/files/file-abc123');
      expect(result.deleted).toBe(true);
    });
  });

  describe('when waiting until a file is ready', () => {
    it('should poll while the status is "processed" and return on "success"', async () => {
      const statuses = ['processed', 'processed', 'success'];
      setup.server.setHandler((_req, res) =>
        sendJson(res, createFile({ status: statuses.shift() ?? 'success' })),
      );
      const file = await setup.client.files.waitUntilReady('file-abc123', { pollInterval: 5 });
      expect(file.status).toBe('success');
      expect(setup.server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        'GET /v1/files/file-abc123',
        'GET /v1/files/file-abc123',
        'GET /v1/files/file-abc123',
      ]);
    });

    it('should throw FileProcessingError on a failed status', async () => {
      setup.replyJson(createFile({ status: 'failed' }));
      const error = await setup.client.files
        .waitUntilReady('file-abc123', { pollInterval: 5 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(FileProcessingError);
      expect(error).toMatchObject({ reason: 'failed', fileId: 'file-abc123' });
      expect((error as Error).message).toContain('"failed"');
    });

    it('should throw FileProcessingError with reason timeout when it stays "processed"', async () => {
      setup.replyJson(createFile({ status: 'processed' }));
      const error = await setup.client.files
        .waitUntilReady('file-abc123', { timeout: 100, pollInterval: 10 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(FileProcessingError);
      expect(error).toMatchObject({ reason: 'timeout' });
      expect((error as Error).message).toMatch(/still "processed" after 100 ms/);
      expect((error as FileProcessingError).file?.status).toBe('processed');
    });

    it('should stop with APIUserAbortError when the signal aborts', async () => {
      setup.replyJson(createFile({ status: 'processed' }));
      const controller = new AbortController();
      const waiting = setup.client.files.waitUntilReady('file-abc123', {
        pollInterval: 60_000,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 20);
      await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });
});
