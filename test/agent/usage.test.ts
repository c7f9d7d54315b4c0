import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, toAgentUsage } from '../../src/agent/usage.js';

describe('usage', () => {
  describe('when converting wire usage', () => {
    it('should rename to camelCase and default cached tokens to 0', () => {
      expect(toAgentUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })).toEqual({
        promptTokens: 3,
        completionTokens: 4,
        totalTokens: 7,
        cachedTokens: 0,
      });
      expect(
        toAgentUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, cached_tokens: 2 })
          .cachedTokens,
      ).toBe(2);
      expect(toAgentUsage(undefined)).toEqual(emptyUsage());
    });
  });

  describe('when adding', () => {
    it('should sum each field', () => {
      const a = { promptTokens: 1, completionTokens: 2, totalTokens: 3, cachedTokens: 1 };
      expect(addUsage(a, a)).toEqual({
        promptTokens: 2,
        completionTokens: 4,
        totalTokens: 6,
        cachedTokens: 2,
      });
    });
  });
});
