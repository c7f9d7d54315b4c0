import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolDefinitionError } from '../../src/tools/errors.js';
import {
  DEFAULT_RETRIEVAL_PROMPT_TEMPLATE,
  DEFAULT_WEB_SEARCH_DESCRIPTION,
  hostedTools,
} from '../../src/tools/hosted-tools.js';
import type { AnyTool, ToolContext } from '../../src/tools/tool.js';
import { resolveNeedsApproval } from '../../src/tools/tool.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city.',
  parameters: z.object({ city: z.string() }),
  execute: () => 'sunny',
});
const docs = hostedTools.retrieval({ name: 'docs', description: 'Product manuals.', vectorStoreId: 'vs_1' });

const ctx: ToolContext = {
  toolCallId: 'c1',
  signal: new AbortController().signal,
  context: undefined,
  client: undefined,
  runId: undefined,
  idempotencyKey: 'c1',
};

describe('createToolSet', () => {
  describe('when function and hosted tools are mixed', () => {
    it('should index functions by name and keep every definition in order', () => {
      const search = hostedTools.webSearch({ description: 'Search the web for news.' });
      const set = createToolSet([search, weather, docs]);
      expect([...set.functions.keys()]).toEqual(['get_weather']);
      expect(set.hosted).toEqual([search, docs]);
      expect(set.definitions).toEqual([search.definition, weather.definition, docs.definition]);
    });
  });

  describe('when two tools share a name', () => {
    it('should throw a ToolDefinitionError naming it', () => {
      const twin = defineTool({ name: 'get_weather', description: 'Other.', execute: () => 1 });
      expect(() => createToolSet([weather, twin])).toThrow(ToolDefinitionError);
      expect(() => createToolSet([weather, twin])).toThrow('Invalid tool "get_weather": duplicate tool name');
    });

    it('should count retrieval names too', () => {
      const clash = defineTool({ name: 'docs', description: 'Other.', execute: () => 1 });
      expect(() => createToolSet([docs, clash])).toThrow('duplicate tool name');
    });
  });

  describe('when an entry is not a tool', () => {
    it('should say which entry', () => {
      expect(() => createToolSet([weather, { name: 'x' } as unknown as AnyTool])).toThrow(
        'Invalid tool "tools[1]"',
      );
    });
  });
});

describe('hostedTools', () => {
  describe('when building web search', () => {
    it('should emit the service shape', () => {
      expect(hostedTools.webSearch({ description: 'News.' })).toEqual({
        kind: 'hosted',
        definition: { type: 'web_search', function: { description: 'News.' } },
      });
      expect(hostedTools.webSearch().definition).toEqual({
        type: 'web_search',
        function: { description: DEFAULT_WEB_SEARCH_DESCRIPTION },
      });
      expect(() => hostedTools.webSearch({ description: '' })).toThrow(ToolDefinitionError);
    });
  });

  describe('when building retrieval', () => {
    it('should emit the service shape with the default template', () => {
      expect(docs.definition).toEqual({
        type: 'retrieval',
        function: {
          name: 'docs',
          description: 'Product manuals.',
          options: { vector_store_id: 'vs_1', prompt_template: DEFAULT_RETRIEVAL_PROMPT_TEMPLATE },
        },
      });
      expect(DEFAULT_RETRIEVAL_PROMPT_TEMPLATE).toContain('{{knowledge}}');
      expect(DEFAULT_RETRIEVAL_PROMPT_TEMPLATE).toContain('{{query}}');
    });

    it.each([
      [{ name: 'bad name', description: 'd', vectorStoreId: 'v' }, 'name must match'],
      [{ name: 'docs', description: '', vectorStoreId: 'v' }, 'description is required'],
      [{ name: 'docs', description: 'd', vectorStoreId: '' }, 'vectorStoreId is required'],
      [
        { name: 'docs', description: 'd', vectorStoreId: 'v', promptTemplate: 'Use {{knowledge}}' },
        '{{query}}',
      ],
    ])('should reject %j', (options, rule) => {
      expect(() => hostedTools.retrieval(options)).toThrow(rule);
    });
  });
});

describe('resolveNeedsApproval', () => {
  describe('when the policy is a constant', () => {
    it('should answer it, false by default', async () => {
      const guarded = defineTool({
        name: 'rm',
        description: 'Deletes.',
        needsApproval: true,
        execute: () => 1,
      });
      expect(await resolveNeedsApproval(weather, { city: 'Oslo' }, ctx)).toBe(false);
      expect(await resolveNeedsApproval(guarded, {}, ctx)).toBe(true);
      expect(await resolveNeedsApproval(docs, {}, ctx)).toBe(false);
    });
  });

  describe('when the policy is a function', () => {
    it('should decide from the arguments', async () => {
      const pay = defineTool({
        name: 'pay',
        description: 'Pays.',
        parameters: z.object({ amount: z.number() }),
        needsApproval: async ({ amount }) => amount > 100,
        execute: () => 'paid',
      });
      expect(await resolveNeedsApproval(pay, { amount: 5 }, ctx)).toBe(false);
      expect(await resolveNeedsApproval(pay, { amount: 500 }, ctx)).toBe(true);
    });
  });
});
