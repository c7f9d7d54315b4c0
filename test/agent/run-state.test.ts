import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/agent/run-result.js';
import { RunState } from '../../src/agent/run-state.js';
import { emptyUsage } from '../../src/agent/usage.js';

const owner = { hasFunctionTool: (name: string) => name === 'delete_file' };

function createState(): RunState {
  const step: AgentStep = {
    index: 0,
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'delete_file', arguments: '{"id":"f"}' } },
      ],
    },
    text: '',
    reasoning: undefined,
    toolCalls: [{ toolCallId: 'c1', toolName: 'delete_file', arguments: '{"id":"f"}', input: { id: 'f' } }],
    hostedToolCalls: [],
    toolResults: [
      { toolCallId: 'old', toolName: 'x', input: {}, status: 'ok', output: { big: 1n }, content: 'done' },
    ],
    usage: { ...emptyUsage(), totalTokens: 5 },
    finishReason: 'tool_calls',
  };
  return new RunState({
    messages: [{ role: 'user', content: 'hi' }, step.message],
    steps: [step],
    turn: 1,
    usage: { ...emptyUsage(), totalTokens: 5 },
    pendingToolCalls: [
      {
        toolCallId: 'c1',
        toolName: 'delete_file',
        arguments: '{"id":"f"}',
        input: { id: 'f' },
        approval: 'pending',
      },
    ],
  });
}

describe('RunState', () => {
  describe('when serialised and read back', () => {
    it('should keep messages, steps, usage, turn and pending approvals', () => {
      const state = createState();
      const text = JSON.stringify(state);
      const back = RunState.fromJSON(text, owner);
      expect(back.messages).toEqual(state.messages);
      expect(back.turn).toBe(1);
      expect(back.usage.totalTokens).toBe(5);
      expect(back.interruptions).toEqual([{ toolCallId: 'c1', toolName: 'delete_file', input: { id: 'f' } }]);
      // A value JSON cannot carry is dropped from the step, never a reason to fail.
      expect(back.steps[0]?.toolResults[0]?.content).toBe('done');
      expect(JSON.parse(text).$schemaVersion).toBe(2);
    });
  });

  describe('when the state carries the agent in charge, the turn budget and the guardrail repairs', () => {
    it('should keep them through JSON', () => {
      const state = createState();
      state.currentAgent = 'billing';
      state.turnLimit = 11;
      state.guardrailRepairs = 1;
      const back = RunState.fromJSON(JSON.stringify(state), owner);
      expect(back).toMatchObject({ currentAgent: 'billing', turnLimit: 11, guardrailRepairs: 1 });
      expect(back.clone()).toMatchObject({ currentAgent: 'billing', turnLimit: 11, guardrailRepairs: 1 });
    });
  });

  describe('when the text was written by the previous version (1)', () => {
    it('should read it, with no agent in charge recorded, no turn budget and no guardrail repair spent', () => {
      const json = createState().toJSON() as unknown as Record<string, unknown>;
      const { guardrailRepairs: _repairs, ...rest } = json;
      const back = RunState.fromJSON(JSON.stringify({ ...rest, $schemaVersion: 1 }), owner);
      expect(back.turn).toBe(1);
      expect(back.interruptions).toHaveLength(1);
      expect(back).toMatchObject({ currentAgent: undefined, turnLimit: undefined, guardrailRepairs: 0 });
      expect(JSON.parse(JSON.stringify(back)).$schemaVersion).toBe(2);
    });
  });

  describe('when a decision is made', () => {
    it('should record approve and reject (with its message) on the pending call', () => {
      const state = createState();
      state.reject('c1', 'no');
      expect(state.pendingToolCalls[0]).toMatchObject({ approval: 'rejected', rejectionMessage: 'no' });
      state.approve('c1');
      expect(state.pendingToolCalls[0]?.approval).toBe('approved');
      expect(state.interruptions).toEqual([]);
    });
  });

  describe('when the text is not a state this version reads', () => {
    it('should say what is wrong', () => {
      expect(() => RunState.fromJSON('{', owner)).toThrow(/not JSON/);
      expect(() => RunState.fromJSON('{"turn":1}', owner)).toThrow(
        /\$schemaVersion undefined is not supported/,
      );
      const json = createState().toJSON();
      expect(() => RunState.fromJSON({ ...json, steps: 'x' } as never, owner)).toThrow(/steps/);
    });
  });
});
