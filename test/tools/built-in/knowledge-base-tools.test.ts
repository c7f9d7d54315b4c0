import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeBaseTools } from '../../../src/tools/built-in/knowledge-base-tools.js';
import { createToolSet } from '../../../src/tools/create-tool-set.js';
import { ToolDefinitionError } from '../../../src/tools/errors.js';
import { executeToolCall } from '../../../src/tools/execute-tool-call.js';
import { createToolCall } from '../../helpers/create-tool-call.js';
import { callTool, jsonOf, startToolService, type ToolService } from '../../helpers/start-tool-service.js';

let service: ToolService;
beforeAll(async () => {
  service = await startToolService();
});
afterAll(() => service.close());

function tools(options: Parameters<typeof knowledgeBaseTools>[1] = {}) {
  return knowledgeBaseTools(service.client, options);
}

async function upload(
  purpose: 'retrieval-text' | 'retrieval-image',
  name: string,
  content = 'Apples have 52 kcal.',
) {
  return service.client.files.upload({ file: Buffer.from(content), filename: name, purpose });
}

describe('knowledgeBaseTools', () => {
  describe('when built with default options', () => {
    it('should offer the seven tools with model-facing descriptions and schemas', () => {
      const all = tools();
      expect(all.map((tool) => tool.name)).toEqual([
        'list_knowledge_bases',
        'create_knowledge_base',
        'get_knowledge_base',
        'add_files_to_knowledge_base',
        'list_knowledge_base_files',
        'remove_file_from_knowledge_base',
        'search_knowledge_base',
      ]);
      for (const tool of all) {
        expect(tool.description.length).toBeGreaterThan(40);
        expect(tool.definition.function.parameters?.type).toBe('object');
      }
      const add = all.find((tool) => tool.name === 'add_files_to_knowledge_base')!;
      expect(add.definition.function.parameters?.properties?.knowledge_base_id).toMatchObject({
        type: 'string',
        description: expect.stringContaining('Id of the knowledge base'),
      });
    });

    it('should need approval only for removing a file', () => {
      const approvals = Object.fromEntries(tools().map((tool) => [tool.name, tool.needsApproval]));
      expect(approvals.remove_file_from_knowledge_base).toBe(true);
      expect(Object.values(approvals).filter((value) => value === true)).toHaveLength(1);
      const relaxed = tools({ needsApproval: { remove_file_from_knowledge_base: false } });
      expect(relaxed.every((tool) => tool.needsApproval === false)).toBe(true);
    });
  });

  describe('when a model reads the definitions', () => {
    it('should find a description on every tool and every parameter', () => {
      for (const tool of tools()) {
        expect(tool.description.length, tool.name).toBeGreaterThan(40);
        for (const [key, schema] of Object.entries(tool.definition.function.parameters?.properties ?? {})) {
          expect(schema.description, `${tool.name}.${key}`).toEqual(expect.any(String));
        }
      }
    });
  });

  describe('when only or exclude pick a subset', () => {
    it('should keep the picked tools', () => {
      expect(
        tools({ only: ['get_knowledge_base', 'list_knowledge_bases'] }).map((tool) => tool.name),
      ).toEqual(['list_knowledge_bases', 'get_knowledge_base']);
      expect(tools({ exclude: ['remove_file_from_knowledge_base'] }).map((tool) => tool.name)).not.toContain(
        'remove_file_from_knowledge_base',
      );
    });

    it('should refuse an unknown name', () => {
      expect(() => tools({ only: ['drop_everything' as never] })).toThrow(ToolDefinitionError);
    });
  });

  describe('when a model manages a text knowledge base', () => {
    it('should create, find, fill, list and empty it', async () => {
      const all = tools();
      const created = jsonOf<{ id: string; name: string }>(
        await callTool(all, service.client, 'create_knowledge_base', { name: 'food_facts' }),
      );
      expect(created.name).toBe('food_facts');

      const listed = jsonOf<{ knowledge_bases: Array<{ id: string; name: string }> }>(
        await callTool(all, service.client, 'list_knowledge_bases', {}),
      );
      expect(listed.knowledge_bases).toContainEqual(
        expect.objectContaining({ id: created.id, name: 'food_facts' }),
      );

      const file = await upload('retrieval-text', 'apples.txt');
      expect(file.status).toBe('processed');
      const added = await callTool(all, service.client, 'add_files_to_knowledge_base', {
        knowledge_base_id: created.id,
        files: [{ file_id: file.id }],
      });
      expect(jsonOf(added)).toEqual({
        knowledge_base_id: created.id,
        added: [expect.objectContaining({ file_id: file.id })],
      });
      // The file was polled until ready before it was added.
      const requests = service.emulator.requests().map((request) => `${request.method} ${request.path}`);
      const polled = requests.lastIndexOf(`GET /v1/files/${file.id}`);
      const addedAt = requests.indexOf(`POST /v1/vector_stores/${created.id}/files`);
      expect(polled).toBeGreaterThan(-1);
      expect(polled).toBeLessThan(addedAt);

      const store = jsonOf<{ type: string; file_counts: { total: number } }>(
        await callTool(all, service.client, 'get_knowledge_base', { knowledge_base_id: created.id }),
      );
      expect(store).toMatchObject({ type: 'text', file_counts: { total: 1 } });

      const files = jsonOf<{ files: Array<{ id: string }> }>(
        await callTool(all, service.client, 'list_knowledge_base_files', { knowledge_base_id: created.id }),
      );
      expect(files.files.map((entry) => entry.id)).toEqual([file.id]);

      const removed = jsonOf(
        await callTool(all, service.client, 'remove_file_from_knowledge_base', {
          knowledge_base_id: created.id,
          file_id: file.id,
        }),
      );
      expect(removed).toMatchObject({ id: file.id, deleted: true });
    });
  });

  describe('when the model breaks a rule', () => {
    it('should refuse a bad name before any request', async () => {
      const before = service.emulator.requests().length;
      const outcome = await callTool(tools(), service.client, 'create_knowledge_base', { name: '_hidden' });
      expect(outcome.status).toBe('invalid-arguments');
      expect(outcome.content).toContain('name:');
      expect(service.emulator.requests()).toHaveLength(before);
    });

    it('should refuse a description over 255 characters', async () => {
      const outcome = await callTool(tools(), service.client, 'add_files_to_knowledge_base', {
        knowledge_base_id: '1',
        files: [{ file_id: 'file-1', description: 'x'.repeat(256) }],
      });
      expect(outcome.status).toBe('invalid-arguments');
      expect(outcome.content).toContain('files[0].description');
    });

    it('should require descriptions for an image knowledge base', async () => {
      const all = tools();
      const store = jsonOf<{ id: string }>(
        await callTool(all, service.client, 'create_knowledge_base', { name: 'photos', type: 'image' }),
      );
      const picture = await upload('retrieval-image', 'apple.png', 'not really a png');
      const outcome = await callTool(all, service.client, 'add_files_to_knowledge_base', {
        knowledge_base_id: store.id,
        files: [{ file_id: picture.id }],
      });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toMatch(
        /^Error in add_files_to_knowledge_base: .*needs a description.*missing for file-/,
      );

      const ok = await callTool(all, service.client, 'add_files_to_knowledge_base', {
        knowledge_base_id: store.id,
        files: [{ file_id: picture.id, description: 'A red apple on a table' }],
      });
      expect(jsonOf(ok)).toMatchObject({ added: [{ file_id: picture.id }] });
    });

    it('should refuse a file whose purpose does not fit the store', async () => {
      const all = tools();
      const store = jsonOf<{ id: string }>(
        await callTool(all, service.client, 'create_knowledge_base', { name: 'texts_only' }),
      );
      const picture = await upload('retrieval-image', 'pear.png');
      const outcome = await callTool(all, service.client, 'add_files_to_knowledge_base', {
        knowledge_base_id: store.id,
        files: [{ file_id: picture.id, description: 'A pear' }],
      });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toContain('purpose retrieval-text');
    });

    it('should report an unknown knowledge base as a tool error', async () => {
      const outcome = await callTool(tools(), service.client, 'get_knowledge_base', {
        knowledge_base_id: '404',
      });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toMatch(/^Error in get_knowledge_base: /);
      expect(outcome.content).not.toContain(service.emulator.apiKey);
      expect(JSON.stringify(outcome)).not.toContain(service.emulator.apiKey);
      expect(inspect(outcome, { depth: 10 })).not.toContain(service.emulator.apiKey);
    });
  });

  describe('when the run is aborted while a file is still being parsed', () => {
    it('should stop waiting and never add the file', async () => {
      const slow = await startToolService(60_000);
      try {
        const all = knowledgeBaseTools(slow.client);
        const store = await slow.client.vectorStores.create({ name: 'slow_base' });
        const file = await slow.client.files.upload({
          file: Buffer.from('text'),
          filename: 'a.txt',
          purpose: 'retrieval-text',
        });
        const controller = new AbortController();
        const call = createToolCall('add_files_to_knowledge_base', {
          knowledge_base_id: store.id,
          files: [{ file_id: file.id }],
        });
        const pending = executeToolCall({
          toolSet: createToolSet(all),
          call,
          client: slow.client,
          signal: controller.signal,
        });
        // Abort once the tool has polled the file at least once.
        while (!slow.emulator.requests().some((request) => request.path === `/v1/files/${file.id}`)) {
          // Polling the emulator's request log: no event tells when the tool polled the file.
          await sleep(10);
        }
        controller.abort(new Error('user stopped'));
        const outcome = await pending;
        expect(outcome).toMatchObject({ status: 'aborted', executed: true });
        // Waiting for nothing to happen: the aborted tool must not poll again.
        await sleep(50);
        expect(slow.emulator.requests().map((request) => request.method + ' ' + request.path)).not.toContain(
          `POST /v1/vector_stores/${store.id}/files`,
        );
      } finally {
        await slow.close();
      }
    });
  });
});
