import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import type { SvcClient } from '../../../src/api/svc-client.js';
import { fileTools } from '../../../src/tools/built-in/file-tools.js';
import { knowledgeBaseTools } from '../../../src/tools/built-in/knowledge-base-tools.js';
import { type ApiTestSetup, createApiTestSetup } from '../../helpers/create-api-test-setup.js';

const badIds = ['.', '..', 'a/b', '../files', 'a\\b'];

/** Every client operation that puts an id in the path. */
const operations: Array<[string, (client: SvcClient, id: string) => unknown]> = [
  ['files.retrieve', (c, id) => c.files.retrieve(id)],
  ['files.content', (c, id) => c.files.content(id)],
  ['files.delete', (c, id) => c.files.delete(id)],
  ['models.retrieve', (c, id) => c.models.retrieve(id)],
  ['vectorStores.retrieve', (c, id) => c.vectorStores.retrieve(id)],
  ['vectorStores.delete', (c, id) => c.vectorStores.delete(id)],
  ['vectorStores.files.list', (c, id) => c.vectorStores.files.list(id)],
  [
    'vectorStores.files.create',
    (c, id) => c.vectorStores.files.create(id, { file_ids: ['file-1'] } as never),
  ],
  ['vectorStores.files.delete (store)', (c, id) => c.vectorStores.files.delete(id, 'file-1')],
  ['vectorStores.files.delete (file)', (c, id) => c.vectorStores.files.delete('vs_1', id)],
];

async function rejection(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('path-segment ids', () => {
  let setup: ApiTestSetup;
  let unvalidated: ApiTestSetup;
  beforeAll(async () => {
    setup = await createApiTestSetup();
    unvalidated = await createApiTestSetup({ validate: false });
    for (const s of [setup, unvalidated]) s.replyJson({ object: 'list', data: [], has_more: false });
  });
  afterEach(() => {
    setup.server.requests.length = 0;
    unvalidated.server.requests.length = 0;
  });
  afterAll(async () => {
    await setup.close();
    await unvalidated.close();
  });

  describe.each(operations)('when %s gets an id that is not one path segment', (_name, call) => {
    it.each(badIds)('should refuse %j before the network, validated or not', async (id) => {
      for (const s of [setup, unvalidated]) {
        const error = await rejection(() => call(s.client, id));
        expect(error).toBeInstanceOf(RequestValidationError);
        expect((error as Error).message).toMatch(/must not/);
        expect(s.server.requests).toHaveLength(0);
      }
    });
  });

  describe('when a normal id is given', () => {
    it('should still send it, encoded', async () => {
      await setup.client.vectorStores.files.list('vs_1');
      expect(setup.server.requests[0]?.url).toMatch(/^\/v1\/vector_stores\/vs_1\/files/);
    });
  });

  describe('when the model passes such an id to a built-in tool', () => {
    it('should refuse it in the arguments schema, naming the field', () => {
      const tools = [...knowledgeBaseTools(setup.client), ...fileTools(setup.client)];
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['list_knowledge_base_files', { knowledge_base_id: '..' }, 'knowledge_base_id'],
        [
          'remove_file_from_knowledge_base',
          { knowledge_base_id: '..', file_id: 'file-1' },
          'knowledge_base_id',
        ],
        ['remove_file_from_knowledge_base', { knowledge_base_id: 'vs_1', file_id: '.' }, 'file_id'],
        ['get_knowledge_base', { knowledge_base_id: 'a/b' }, 'knowledge_base_id'],
        ['delete_file', { file_id: '..' }, 'file_id'],
      ];
      for (const [name, args, field] of cases) {
        const tool = byName.get(name);
        expect(tool, name).toBeDefined();
        const parsed = tool!.parseArguments(JSON.stringify(args));
        expect(parsed.ok, `${name} ${JSON.stringify(args)}`).toBe(false);
        if (!parsed.ok) expect(parsed.error.message).toContain(field);
      }
      expect(byName.get('get_knowledge_base')!.parseArguments('{"knowledge_base_id":"vs_1"}').ok).toBe(true);
    });
  });
});
