import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentOptionsError } from '../../src/agent/errors.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import type { SvcClient } from '../../src/api/svc-client.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { KnowledgeBaseNameError } from '../../src/tools/errors.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const question = 'When is the Lisbon office open on Saturday?';
// The emulator keeps stored data between tests: each test names its own knowledge bases.
let created = 0;
const uniqueName = (base: string) => `${base}_${++created}`;

/** A text knowledge base holding one ready file. */
async function createKnowledgeBase(client: SvcClient, name: string, fileName: string, content: string) {
  const store = await client.vectorStores.create({ name, type: 'text' });
  const file = await client.files.upload({
    file: Buffer.from(content),
    filename: fileName,
    purpose: 'retrieval-text',
  });
  await client.files.waitUntilReady(file.id);
  await client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
  return { store, file };
}

async function createOfficeDocs(client: SvcClient, name: string) {
  return createKnowledgeBase(
    client,
    name,
    'office-hours.md',
    'Office hours\n\nThe Lisbon office is open on Saturday from 10:00 to 14:00. It is closed on Sunday.',
  );
}

/** The vector store ids the run's hosted retrievals searched. */
function searchedStores(): string[] {
  return chatRequests(env.emu).flatMap((body) =>
    ((body.tools as Array<{ type: string; function: { options?: { vector_store_id: string } } }>) ?? [])
      .filter((tool) => tool.type === 'retrieval')
      .map((tool) => tool.function.options?.vector_store_id as string),
  );
}

describe('Agent knowledge bases', () => {
  describe('when a run chooses its knowledge bases', () => {
    it('should search them, report each cited file as a source event and in the result', async () => {
      const office = uniqueName('office_docs');
      const { store, file } = await createOfficeDocs(env.client, office);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash-2603' });
      const stream = agent.stream(question, { knowledgeBases: [office] });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      const source = {
        sourceType: 'document',
        id: `${store.id}/${file.id}`,
        title: 'office-hours.md',
        fileId: file.id,
        score: expect.any(Number),
      };
      const sourceEvents = events.filter((event) => event.type === 'source');
      expect(sourceEvents).toEqual([{ type: 'source', toolCallId: expect.any(String), ...source }]);
      // The source follows the result it comes from.
      const resultAt = events.findIndex((event) => event.type === 'tool-result');
      expect(events.indexOf(sourceEvents[0] as AgentEvent)).toBe(resultAt + 1);
      expect(result.sources).toEqual([source]);
      expect(result.steps[0]?.toolResults[0]?.sources).toEqual([source]);
      expect(result.text).toContain('10:00 to 14:00');
      expect(result.text).toContain('office-hours.md');
      expect(searchedStores()).toEqual([store.id]);
    });

    it('should search the run’s knowledge bases instead of the agent’s', async () => {
      const office = uniqueName('office_docs');
      const travelName = uniqueName('travel_docs');
      await createOfficeDocs(env.client, office);
      const { store: travel } = await createKnowledgeBase(
        env.client,
        travelName,
        'travel.md',
        'The Lisbon office books train tickets for Saturday trips.',
      );
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash-2603',
        knowledgeBases: [office],
      });
      const result = await agent.run(question, { knowledgeBases: [travelName] });
      expect(searchedStores()).toEqual([travel.id]);
      expect(result.sources.map((source) => source.title)).toEqual(['travel.md']);
    });

    it('should keep the sources through a saved and restored state', async () => {
      const office = uniqueName('office_docs');
      await createOfficeDocs(env.client, office);
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash-2603',
        knowledgeBases: [office],
      });
      const result = await agent.run(question);
      const restored = RunState.fromJSON(JSON.stringify(result.state), agent);
      expect(restored.steps[0]?.toolResults[0]?.sources).toEqual(result.sources);
      expect(result.sources).toHaveLength(1);
    });
  });

  describe('when the passages name a file only in passing', () => {
    it('should list as sources only the files the answer drew on, best first, with their scores', async () => {
      const name = uniqueName('office_docs');
      const { store, file } = await createOfficeDocs(env.client, name);
      const other = await env.client.files.upload({
        file: Buffer.from('Deliveries\n\nParcels for the Porto office arrive on Saturday mornings.'),
        filename: 'deliveries.md',
        purpose: 'retrieval-text',
      });
      await env.client.files.waitUntilReady(other.id);
      await env.client.vectorStores.files.create(store.id, { files: [{ file_id: other.id }] });
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash-2603' });

      const result = await agent.run(question, { knowledgeBases: [name] });

      const passages = JSON.parse(result.steps[0]?.toolResults[0]?.content ?? '{}').results[0]
        .passages as string;
      // The retrieval named the other file too ("See also deliveries.md."), quoting nothing of it.
      expect(passages).toContain('deliveries.md');
      expect(result.sources).toEqual([
        expect.objectContaining({ title: 'office-hours.md', fileId: file.id, score: expect.any(Number) }),
      ]);
      expect(result.sources[0]!.score).toBeGreaterThan(0.5);
    });
  });

  describe('when the agent chooses them', () => {
    it('should add the search tool beside its own tools', async () => {
      const office = uniqueName('office_docs');
      await createOfficeDocs(env.client, office);
      const echo = defineTool({ name: 'echo', description: 'Echoes a word back.', execute: () => 'echo' });
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash-2603',
        tools: [echo],
        knowledgeBases: [office],
      });
      await agent.run(question);
      const tools = chatRequests(env.emu)[0]?.tools as Array<{ function: { name: string } }> | undefined;
      const names = tools?.map((tool) => tool.function.name);
      expect(names).toEqual(['echo', 'search_knowledge_base']);
    });
  });

  describe('when a chosen knowledge base does not exist', () => {
    it('should refuse a run option naming it before the first model request, listing the ones that exist', async () => {
      const office = uniqueName('office_docs');
      await createOfficeDocs(env.client, office);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash-2603' });

      const error = await agent
        .run(question, { knowledgeBases: ['nope'] })
        .catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(KnowledgeBaseNameError);
      expect(error).toMatchObject({ problem: 'not-found', knowledgeBase: 'nope' });
      expect((error as Error).message).toContain(office);
      expect(chatRequests(env.emu)).toHaveLength(0);
    });

    it('should refuse an agent option naming it before the first model request, on every run', async () => {
      const office = uniqueName('office_docs');
      await createOfficeDocs(env.client, office);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash-2603', knowledgeBases: ['nope'] });

      for (let run = 0; run < 2; run++) {
        const error = await agent.run(question).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(KnowledgeBaseNameError);
        expect((error as Error).message).toContain(office);
      }
      expect(chatRequests(env.emu)).toHaveLength(0);
    });
  });

  describe('when the choice is malformed', () => {
    it('should refuse an empty list or a non-string, naming the option', async () => {
      expect(
        () => new Agent({ client: env.client, model: 'svc-3.5-flash-2603', knowledgeBases: [] }),
      ).toThrow(AgentOptionsError);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash-2603' });
      await expect(agent.run('hi', { knowledgeBases: [''] })).rejects.toThrow(
        /knowledgeBases: must be a non-empty array/,
      );
      expect(chatRequests(env.emu)).toHaveLength(0);
    });

    it('should refuse knowledge bases with a tools function, which chooses the tools itself', () => {
      expect(
        () =>
          new Agent({
            client: env.client,
            model: 'svc-3.5-flash-2603',
            tools: () => [],
            knowledgeBases: ['office_docs'],
          }),
      ).toThrow(/knowledgeBases: needs a tools list/);
    });
  });
});
