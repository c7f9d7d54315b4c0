import { describe, expect, it } from 'vitest';
import { KnowledgeUploads } from '../../../../src/cli/demo/serve/knowledge-uploads.js';
import { memoryStore } from '../../../../src/stores/memory-store.js';
import { useAgentTestEnv } from '../../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const file = (text: string) => new TextEncoder().encode(text);

describe('KnowledgeUploads', () => {
  describe('when two servers share a store', () => {
    it('should give a session one knowledge base, found by either server', async () => {
      const store = memoryStore();
      const a = new KnowledgeUploads(env.client, store);
      const b = new KnowledgeUploads(env.client, store);
      const [first, second] = await Promise.all([
        a.add('chat-1', 'comets.txt', file('Comets have tails.')),
        b.add('chat-1', 'planets.txt', file('Planets orbit stars.')),
      ]);
      expect(second.knowledgeBaseId).toBe(first.knowledgeBaseId);
      expect(await b.storeOf('chat-1')).toBe(first.knowledgeBaseId);
      expect(await new KnowledgeUploads(env.client, store).storeOf('chat-1')).toBe(first.knowledgeBaseId);
      const files = await env.client.vectorStores.files.list(first.knowledgeBaseId);
      expect(files.data.map((entry) => entry.id).sort()).toEqual([first.fileId, second.fileId].sort());
      expect(await a.storeOf('chat-2')).toBeUndefined();
    });
  });
});
