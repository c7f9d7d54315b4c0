import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { knowledgeBaseTools } from '../../../src/tools/built-in/knowledge-base-tools.js';
import {
  type SearchKnowledgeBaseOutput,
  searchKnowledgeBaseTool,
} from '../../../src/tools/built-in/search-knowledge-base.js';
import { KnowledgeBaseNameError } from '../../../src/tools/errors.js';
import { callTool, jsonOf, startToolService, type ToolService } from '../../helpers/start-tool-service.js';

const officeHours =
  'Office hours\n\nThe Lisbon office is open on Saturday from 10:00 to 14:00. It is closed on Sunday.\n\n' +
  'The Porto office is open Monday to Friday only.';
const travelPolicy =
  'Travel policy\n\nTrain tickets are booked through the travel desk, at least a week ahead.';

let service: ToolService;
beforeEach(async () => {
  service = await startToolService(0);
});
afterEach(() => service.close());

/** A text knowledge base holding one file with `content`, ready to search. */
async function createKnowledgeBase(name: string, fileName: string, content: string) {
  const store = await service.client.vectorStores.create({ name, type: 'text' });
  const file = await service.client.files.upload({
    file: Buffer.from(content),
    filename: fileName,
    purpose: 'retrieval-text',
  });
  await service.client.files.waitUntilReady(file.id);
  await service.client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
  return { store, file };
}

describe('searchKnowledgeBaseTool', () => {
  describe('when the model names a knowledge base', () => {
    it('should return the passages with the ids and names of the files they come from', async () => {
      const { store, file } = await createKnowledgeBase('office_docs', 'office-hours.md', officeHours);
      await createKnowledgeBase('travel_docs', 'travel.md', travelPolicy);
      const tool = searchKnowledgeBaseTool(service.client);
      const outcome = await callTool([tool], service.client, 'search_knowledge_base', {
        query: 'When is the Lisbon office open on Saturday?',
        knowledge_base: 'office_docs',
      });
      const output = jsonOf<SearchKnowledgeBaseOutput>(outcome);
      expect(output.results).toHaveLength(1);
      expect(output.results[0]).toMatchObject({
        knowledge_base: 'office_docs',
        knowledge_base_id: store.id,
        files: [{ file_id: file.id, file_name: 'office-hours.md', score: expect.any(Number) }],
      });
      expect(output.results[0]?.passages).toContain('10:00 to 14:00');
      // The search went through the service's hosted retrieval of that one store.
      const retrieval = service.emulator
        .requests()
        .filter((request) => request.path === '/v1/chat/completions')
        .map((request) => JSON.stringify(request.body));
      expect(retrieval).toHaveLength(1);
      expect(retrieval[0]).toContain(`"vector_store_id":"${store.id}"`);
      expect(tool.sources?.(output)).toEqual([
        {
          sourceType: 'document',
          id: `${store.id}/${file.id}`,
          title: 'office-hours.md',
          fileId: file.id,
          score: expect.any(Number),
        },
      ]);
    });

    it('should find it by id as well as by name', async () => {
      const { store } = await createKnowledgeBase('office_docs', 'office-hours.md', officeHours);
      const outcome = await callTool(
        [searchKnowledgeBaseTool(service.client)],
        service.client,
        'search_knowledge_base',
        {
          query: 'Lisbon Saturday',
          knowledge_base: store.id,
        },
      );
      expect(jsonOf<SearchKnowledgeBaseOutput>(outcome).results[0]?.knowledge_base).toBe('office_docs');
    });

    it('should refuse a name several knowledge bases share, listing them', async () => {
      const first = await service.client.vectorStores.create({ name: 'shared_name' });
      const second = await service.client.vectorStores.create({ name: 'shared_name' });
      const outcome = await callTool(
        [searchKnowledgeBaseTool(service.client)],
        service.client,
        'search_knowledge_base',
        {
          query: 'anything',
          knowledge_base: 'shared_name',
        },
      );
      expect(outcome.status).toBe('error');
      expect(KnowledgeBaseNameError.isInstance(outcome.error?.cause)).toBe(true);
      expect(outcome.content).toContain('matches 2 knowledge bases');
      expect(outcome.content).toContain(first.id);
      expect(outcome.content).toContain(second.id);
    });

    it('should refuse a knowledge base outside the ones it was given', async () => {
      await createKnowledgeBase('office_docs', 'office-hours.md', officeHours);
      await createKnowledgeBase('travel_docs', 'travel.md', travelPolicy);
      const tool = searchKnowledgeBaseTool(service.client, { knowledgeBases: ['travel_docs'] });
      const outcome = await callTool([tool], service.client, 'search_knowledge_base', {
        query: 'Lisbon Saturday',
        knowledge_base: 'office_docs',
      });
      // The schema offers only the chosen ones, so the model is told which it may pick; nothing is searched.
      expect(outcome.status).toBe('invalid-arguments');
      expect(outcome.content).toContain('knowledge_base');
      expect(outcome.content).toContain('"travel_docs"');
      expect(service.emulator.requests().some((request) => request.path === '/v1/chat/completions')).toBe(
        false,
      );
    });
  });

  describe('when the model names none', () => {
    it('should search every knowledge base it was given', async () => {
      await createKnowledgeBase('office_docs', 'office-hours.md', officeHours);
      await createKnowledgeBase('travel_docs', 'travel.md', travelPolicy);
      await createKnowledgeBase('other_docs', 'other.md', 'Nothing about offices here.');
      const tool = searchKnowledgeBaseTool(service.client, {
        knowledgeBases: ['office_docs', 'travel_docs'],
      });
      const output = jsonOf<SearchKnowledgeBaseOutput>(
        await callTool([tool], service.client, 'search_knowledge_base', { query: 'train tickets' }),
      );
      expect(output.results.map((result) => result.knowledge_base)).toEqual(['office_docs', 'travel_docs']);
      expect(output.results[1]?.files).toEqual([expect.objectContaining({ file_name: 'travel.md' })]);
    });

    it('should search the whole account when it has few knowledge bases, and ask for a name when it has none', async () => {
      const tool = searchKnowledgeBaseTool(service.client);
      const empty = await callTool([tool], service.client, 'search_knowledge_base', { query: 'Lisbon' });
      expect(empty.status).toBe('error');
      expect(empty.content).toContain('no knowledge bases yet');
      await createKnowledgeBase('office_docs', 'office-hours.md', officeHours);
      const output = jsonOf<SearchKnowledgeBaseOutput>(
        await callTool([tool], service.client, 'search_knowledge_base', { query: 'Lisbon Saturday' }),
      );
      expect(output.results.map((result) => result.knowledge_base)).toEqual(['office_docs']);
    });
  });
});

describe('knowledgeBaseTools create_knowledge_base', () => {
  describe('when the name is already taken', () => {
    it('should refuse a second knowledge base of that name, naming the first', async () => {
      const tools = knowledgeBaseTools(service.client);
      const first = jsonOf<{ id: string }>(
        await callTool(tools, service.client, 'create_knowledge_base', { name: 'office_docs' }),
      );
      const second = await callTool(tools, service.client, 'create_knowledge_base', { name: 'office_docs' });
      expect(second.status).toBe('error');
      expect(second.content).toContain('a knowledge base named "office_docs" already exists');
      expect(second.content).toContain(first.id);
      const stores = await service.client.vectorStores.list({ limit: 100 });
      expect(stores.data.filter((store) => store.name === 'office_docs')).toHaveLength(1);
    });

    it('should create it anyway when duplicate names are allowed', async () => {
      const tools = knowledgeBaseTools(service.client, { allowDuplicateNames: true });
      await callTool(tools, service.client, 'create_knowledge_base', { name: 'office_docs' });
      const second = await callTool(tools, service.client, 'create_knowledge_base', { name: 'office_docs' });
      expect(second.status).toBe('ok');
    });
  });
});
