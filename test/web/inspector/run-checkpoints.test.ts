import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../../src/agent/run-result.js';
import type { ChatMessage } from '../../../src/api/types/chat.js';
import { jsonDiff } from '../../../src/web/inspector/json-diff.js';
import {
  deriveCheckpoints,
  stateBeforeStep,
  stepBoundaries,
} from '../../../src/web/inspector/run-checkpoints.js';

const usage = (total: number) => ({
  promptTokens: total - 1,
  completionTokens: 1,
  totalTokens: total,
  cachedTokens: 0,
});

function createStep(index: number, message: ChatMessage & { role: 'assistant' }, total = 10): AgentStep {
  return {
    index,
    message,
    text: typeof message.content === 'string' ? message.content : '',
    reasoning: undefined,
    toolCalls: [],
    hostedToolCalls: [],
    toolResults: [],
    usage: usage(total),
    finishReason: 'stop',
  };
}

const call = { id: 'c1', type: 'function' as const, function: { name: 'add', arguments: '{}' } };
const first = { role: 'assistant' as const, content: '', tool_calls: [call] };
const second = { role: 'assistant' as const, content: 'Two.' };
const messages: ChatMessage[] = [
  { role: 'user', content: 'history' },
  { role: 'assistant', content: 'old answer' },
  { role: 'user', content: 'One plus one?' },
  first,
  { role: 'tool', tool_call_id: 'c1', content: '2' },
  second,
];
const steps = [createStep(0, first, 10), createStep(1, second, 20)];

describe('run checkpoints', () => {
  describe('when every step message is in the conversation', () => {
    it('should find each step message after the history, and the state before each step', () => {
      // The history's own assistant message is not step 0's, though both are assistants.
      expect(stepBoundaries(messages, steps)).toEqual([3, 5]);
      expect(stateBeforeStep(messages, steps, 1)).toEqual({
        messages: messages.slice(0, 5),
        steps: steps.slice(0, 1),
        usage: usage(10),
      });
      expect(stateBeforeStep(messages, steps, 2)?.messages).toEqual(messages);
      expect(stateBeforeStep(messages, steps, 3)).toBeUndefined();
      expect(stateBeforeStep(messages, steps, -1)).toBeUndefined();
    });

    it('should diff each checkpoint against the one before', () => {
      const checkpoints = deriveCheckpoints(messages, steps);
      expect(checkpoints.map(({ step, turn, messageCount }) => ({ step, turn, messageCount }))).toEqual([
        { step: 0, turn: 1, messageCount: 5 },
        { step: 1, turn: 2, messageCount: 6 },
      ]);
      expect(checkpoints[1]!.diff).toEqual([
        { path: 'turn', kind: 'changed', before: 1, after: 2 },
        { path: 'usage.promptTokens', kind: 'changed', before: 9, after: 28 },
        { path: 'usage.completionTokens', kind: 'changed', before: 1, after: 2 },
        { path: 'usage.totalTokens', kind: 'changed', before: 10, after: 30 },
        { path: 'messages[5]', kind: 'added', after: second },
      ]);
    });
  });

  describe('when a step message was filtered out of the conversation', () => {
    it('should derive the states only up to that step', () => {
      const filtered = messages.filter((message) => message !== first);
      expect(stepBoundaries(filtered, steps)).toEqual([]);
      expect(stateBeforeStep(filtered, steps, 1)).toBeUndefined();
      expect(deriveCheckpoints(filtered, steps)).toEqual([]);
    });
  });
});

describe('jsonDiff', () => {
  it('should ignore key order and report added, removed and changed paths', () => {
    expect(jsonDiff({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
    expect(jsonDiff({ a: 1, b: [1], d: 'x' }, { a: 2, b: [1, 3], e: null })).toEqual([
      { path: 'a', kind: 'changed', before: 1, after: 2 },
      { path: 'b[1]', kind: 'added', after: 3 },
      { path: 'd', kind: 'removed', before: 'x' },
      { path: 'e', kind: 'added', after: null },
    ]);
    expect(jsonDiff([1], { 0: 1 })).toEqual([
      { path: '(root)', kind: 'changed', before: [1], after: { 0: 1 } },
    ]);
  });
});
