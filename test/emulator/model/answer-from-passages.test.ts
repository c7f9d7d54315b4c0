import { describe, expect, it } from 'vitest';
import type { FunctionToolDefinition } from '../../../src/api/types/chat.js';
import { answerFromPassages } from '../../../src/emulator/model/answer-from-passages.js';
import { planKnowledgeBaseSearch } from '../../../src/emulator/model/plan-knowledge-base-search.js';

const searchResult = (results: unknown[]) => ({
  name: 'search_knowledge_base',
  arguments: {},
  content: JSON.stringify({ results }),
});

describe('answerFromPassages', () => {
  describe('when a search returned passages from several knowledge bases', () => {
    it('should answer with the sentence that fits the question best, naming its file', () => {
      const text = answerFromPassages(
        [
          searchResult([
            {
              knowledge_base: 'shop_returns',
              passages:
                'According to returns-policy.md: Items must be unused. You can return any item within 30 days of delivery for a full refund.',
              files: [{ file_id: 'file-1', file_name: 'returns-policy.md' }],
            },
            {
              knowledge_base: 'shop_shipping',
              passages: 'According to shipping.md: Standard shipping takes 3 to 5 business days.',
              files: [{ file_id: 'file-2', file_name: 'shipping.md' }],
            },
          ]),
        ],
        'How many days do I have to return an item for a refund?',
      );
      expect(text).toBe(
        'You can return any item within 30 days of delivery for a full refund. (source: returns-policy.md in shop_returns)',
      );
    });
  });

  describe('when nothing was found', () => {
    it('should say so, naming the knowledge bases searched', () => {
      const text = answerFromPassages(
        [
          searchResult([
            { knowledge_base: 'office_docs', passages: 'I could not find anything.', files: [] },
          ]),
        ],
        'Where is the canteen?',
      );
      expect(text).toBe('I found nothing about that in the knowledge base office_docs.');
    });
  });

  describe('when the tool results are something else', () => {
    it('should leave them to the generic description', () => {
      expect(
        answerFromPassages([{ name: 'get_weather', arguments: {}, content: '{"city":"Paris"}' }], 'Weather?'),
      ).toBe(undefined);
    });
  });
});

describe('planKnowledgeBaseSearch', () => {
  const search = (knowledgeBase: Record<string, unknown>): FunctionToolDefinition => ({
    type: 'function',
    function: {
      name: 'search_knowledge_base',
      description: 'Search the knowledge bases.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, knowledge_base: knowledgeBase },
      },
    },
  });

  it('should search the chosen knowledge bases for a question, with the question as query', () => {
    const answer = planKnowledgeBaseSearch(
      [search({ type: 'string', enum: ['office_docs'] })],
      'When is the Lisbon office open?',
      'seed',
    );
    expect(answer?.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_kb_/),
        name: 'search_knowledge_base',
        arguments: '{"query":"When is the Lisbon office open?"}',
      },
    ]);
  });

  it('should not search for a statement, nor with a tool that chose no knowledge bases', () => {
    expect(
      planKnowledgeBaseSearch([search({ type: 'string', enum: ['office_docs'] })], 'Thanks!', 'seed'),
    ).toBe(undefined);
    expect(planKnowledgeBaseSearch([search({ type: 'string' })], 'When is the office open?', 'seed')).toBe(
      undefined,
    );
  });
});
