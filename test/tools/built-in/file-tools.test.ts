import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTools } from '../../../src/tools/built-in/file-tools.js';
import { ToolDefinitionError } from '../../../src/tools/errors.js';
import { createFileFixture, type FileFixture } from '../../helpers/file-fixture.js';
import { callTool, jsonOf, startToolService, type ToolService } from '../../helpers/start-tool-service.js';

let service: ToolService;
let fixture: FileFixture;
let base: string;
let root: string;

beforeAll(async () => {
  service = await startToolService();
  fixture = await createFileFixture('svc-file-tools-', {
    'work/report.md': '# Sales\nRevenue grew 12% in Q3.',
    'secret.env': 'TOKEN=hunter2',
    'work/.env': 'TOKEN=hunter2',
    'work/.env.production': 'TOKEN=hunter2',
    'work/keys/server.pem': 'TOKEN=hunter2',
    'work/.aws/config': 'TOKEN=hunter2',
    'work/credentials.json': 'TOKEN=hunter2',
    'work/id_ed25519': 'TOKEN=hunter2',
  });
  base = fixture.dir;
  root = fixture.path('work');
  await symlink(path.join(base, 'secret.env'), path.join(root, 'innocent.md'));
  await symlink(path.join(root, '.env'), path.join(root, 'notes.md'));
});
afterAll(async () => {
  await service.close();
  await fixture.remove();
});

describe('fileTools', () => {
  describe('when built', () => {
    it('should offer upload_file only with a root', () => {
      expect(fileTools(service.client).map((tool) => tool.name)).toEqual([
        'list_files',
        'get_file',
        'read_file_content',
        'delete_file',
      ]);
      expect(fileTools(service.client, { root }).map((tool) => tool.name)).toContain('upload_file');
      expect(() => fileTools(service.client, { only: ['upload_file'] })).toThrow(ToolDefinitionError);
    });

    it('should describe every tool and every parameter for the model', () => {
      for (const tool of fileTools(service.client, { root })) {
        expect(tool.description.length, tool.name).toBeGreaterThan(40);
        for (const [key, schema] of Object.entries(tool.definition.function.parameters?.properties ?? {})) {
          expect(schema.description, `${tool.name}.${key}`).toEqual(expect.any(String));
        }
      }
    });

    it('should need approval for delete_file only', () => {
      const all = fileTools(service.client, { root });
      expect(all.filter((tool) => tool.needsApproval === true).map((tool) => tool.name)).toEqual([
        'delete_file',
      ]);
    });

    it('should honour only and exclude', () => {
      expect(fileTools(service.client, { root, only: ['get_file'] }).map((tool) => tool.name)).toEqual([
        'get_file',
      ]);
      expect(
        fileTools(service.client, { root, exclude: ['delete_file'] }).map((tool) => tool.name),
      ).not.toContain('delete_file');
    });
  });

  describe('when a model uploads, reads and deletes a document', () => {
    it('should go through the whole life of the file', async () => {
      const all = fileTools(service.client, { root });
      const uploaded = jsonOf<{ id: string; filename: string; ready: boolean; purpose: string }>(
        await callTool(all, service.client, 'upload_file', { path: 'report.md', purpose: 'file-extract' }),
      );
      expect(uploaded).toMatchObject({ filename: 'report.md', purpose: 'file-extract', ready: true });

      const listed = jsonOf<{ files: Array<{ id: string }> }>(
        await callTool(all, service.client, 'list_files', { purpose: 'file-extract' }),
      );
      expect(listed.files.map((file) => file.id)).toContain(uploaded.id);

      const got = jsonOf(await callTool(all, service.client, 'get_file', { file_id: uploaded.id }));
      expect(got).toMatchObject({ id: uploaded.id, status: 'success', ready: true });

      const text = await callTool(all, service.client, 'read_file_content', { file_id: uploaded.id });
      expect(text.status).toBe('ok');
      expect(text.content).toContain('Revenue grew 12% in Q3.');

      const cut = await callTool(all, service.client, 'read_file_content', {
        file_id: uploaded.id,
        max_chars: 7,
      });
      expect(cut.content).toMatch(
        /^# Sales\n\[truncated: \d+ of \d+ characters cut; ask for a narrower result\]$/,
      );

      const deleted = jsonOf(await callTool(all, service.client, 'delete_file', { file_id: uploaded.id }));
      expect(deleted).toMatchObject({ id: uploaded.id, deleted: true });
      const gone = await callTool(all, service.client, 'get_file', { file_id: uploaded.id });
      expect(gone.status).toBe('error');
    });
  });

  describe('when the model asks to upload a file outside the root', () => {
    it.each([
      ['a .. escape', '../secret.env'],
      ['a symlink pointing outside', 'innocent.md'],
      ['an absolute path', path.join('/', 'etc', 'hostname')],
    ])('should refuse %s without sending anything', async (_label, requested) => {
      const before = service.emulator.requests().length;
      const outcome = await callTool(fileTools(service.client, { root }), service.client, 'upload_file', {
        path: requested,
        purpose: 'file-extract',
      });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toMatch(/^Error in upload_file: Refused path/);
      expect(outcome.content).not.toContain('hunter2');
      expect(service.emulator.requests()).toHaveLength(before);
    });
  });

  describe('when the model asks to upload a file that looks like it holds secrets', () => {
    it.each([
      ['.env'],
      ['./.env'],
      ['.env.production'],
      ['keys/server.pem'],
      ['.aws/config'],
      ['credentials.json'],
      ['id_ed25519'],
      ['notes.md'], // a harmless name linking to .env
    ])('should refuse %s by default without reading or sending it', async (requested) => {
      const before = service.emulator.requests().length;
      const outcome = await callTool(fileTools(service.client, { root }), service.client, 'upload_file', {
        path: requested,
        purpose: 'file-extract',
      });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toMatch(/looks like it holds secrets/);
      expect(outcome.content).not.toContain('hunter2');
      expect(service.emulator.requests()).toHaveLength(before);
    });

    it('should upload it when the app turns the check off (secretFiles: false) or narrows it', async () => {
      const open = fileTools(service.client, { root, secretFiles: false });
      const uploaded = await callTool(open, service.client, 'upload_file', {
        path: '.env',
        purpose: 'storage',
      });
      expect(uploaded.status).toBe('ok');
      const narrowed = fileTools(service.client, { root, secretFiles: [/\.pem$/] });
      const pem = await callTool(narrowed, service.client, 'upload_file', {
        path: 'keys/server.pem',
        purpose: 'storage',
      });
      expect(pem.status).toBe('error');
      const env = await callTool(narrowed, service.client, 'upload_file', {
        path: '.env',
        purpose: 'storage',
      });
      expect(env.status).toBe('ok');
    });
  });
});
