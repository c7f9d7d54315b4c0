import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/agent/run-result.js';
import {
  allOf,
  anyOf,
  hasToolCall,
  isRepeatedToolCall,
  isStepCount,
} from '../../src/agent/stop-conditions.js';
import { emptyUsage } from '../../src/agent/usage.js';

function createStep(calls: Array<[name: string, args: string]>, index = 0): AgentStep {
  return {
    index,
    message: { role: 'assistant', content: '' },
    text: '',
    reasoning: undefined,
    toolCalls: calls.map(([toolName, args], i) => ({
      toolCallId: `c${index}_${i}`,
      toolName,
      arguments: args,
      input: {},
    })),
    hostedToolCalls: [],
    toolResults: [],
    usage: emptyUsage(),
    finishReason: 'tool_calls',
  };
}

describe('stop conditions', () => {
  describe('isStepCount', () => {
    it('should hold from the given number of steps on', () => {
      expect(isStepCount(2)({ steps: [createStep([])] })).toBe(false);
      expect(isStepCount(2)({ steps: [createStep([]), createStep([])] })).toBe(true);
    });
  });

  describe('hasToolCall', () => {
    it('should look at the last step only', () => {
      const steps = [createStep([['submit', '{}']]), createStep([['other', '{}']])];
      expect(hasToolCall('submit')({ steps })).toBe(false);
      expect(hasToolCall('other')({ steps })).toBe(true);
    });
  });

  describe('isRepeatedToolCall', () => {
    it('should hold when the same call with the same arguments (any key order) ends three steps in a row', () => {
      const same = [
        createStep([['t', '{"a":1,"b":[1,2]}']]),
        createStep([
          ['x', '{}'],
          ['t', '{"b":[1,2],"a":1}'],
        ]),
        createStep([['t', ' {"a": 1, "b": [1, 2]} ']]),
      ];
      expect(isRepeatedToolCall(3)({ steps: same })).toBe(true);
    });

    it('should not hold for other arguments, fewer steps, or repeats within one step', () => {
      expect(
        isRepeatedToolCall(3)({
          steps: [
            createStep([['t', '{"a":1}']]),
            createStep([['t', '{"a":2}']]),
            createStep([['t', '{"a":1}']]),
          ],
        }),
      ).toBe(false);
      expect(isRepeatedToolCall(3)({ steps: [createStep([['t', '{}']]), createStep([['t', '{}']])] })).toBe(
        false,
      );
      expect(
        isRepeatedToolCall(3)({
          steps: [
            createStep([
              ['t', '{}'],
              ['t', '{}'],
              ['t', '{}'],
            ]),
          ],
        }),
      ).toBe(false);
    });
  });

  describe('anyOf / allOf', () => {
    it('should compose conditions', async () => {
      const steps = [createStep([['submit', '{}']])];
      expect(await anyOf(isStepCount(5), hasToolCall('submit'))({ steps })).toBe(true);
      expect(await allOf(isStepCount(5), hasToolCall('submit'))({ steps })).toBe(false);
      expect(await allOf(isStepCount(1), hasToolCall('submit'))({ steps })).toBe(true);
    });

    it('should answer synchronously when every condition does', () => {
      const steps = [createStep([['submit', '{}']])];
      expect(anyOf(isStepCount(5), hasToolCall('submit'))({ steps })).toBe(true);
      expect(allOf(isStepCount(1), hasToolCall('other'))({ steps })).toBe(false);
    });

    it('should await asynchronous conditions in order and stop at the deciding one', async () => {
      const steps = [createStep([['submit', '{}']])];
      const asked: string[] = [];
      const later = (name: string, answer: boolean) => async () => {
        asked.push(name);
        return answer;
      };
      const now = (name: string, answer: boolean) => () => {
        asked.push(name);
        return answer;
      };
      expect(await anyOf(now('a', false), later('b', false), now('c', true), now('d', true))({ steps })).toBe(
        true,
      );
      expect(asked).toEqual(['a', 'b', 'c']);
      asked.length = 0;
      expect(await allOf(later('a', true), now('b', false), later('c', true))({ steps })).toBe(false);
      expect(asked).toEqual(['a', 'b']);
      asked.length = 0;
      expect(await anyOf(later('a', false), later('b', false))({ steps })).toBe(false);
      expect(await allOf(later('c', true), now('d', true))({ steps })).toBe(true);
      expect(asked).toEqual(['a', 'b', 'c', 'd']);
    });
  });
});
