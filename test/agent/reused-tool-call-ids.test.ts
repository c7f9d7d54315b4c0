import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { RunState } from '../../src/agent/run-state.js';
import type { ChatMessage, ToolMessage } from '../../src/api/types/chat.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

function toolTurn(...calls: Array<[id: string, args: string]>) {
  return {
    message: {
      content: '',
      tool_calls: calls.map(([id, args]) => ({ id, function: { name: 'lookup', arguments: args } })),
    },
  };
}

function toolMessages(messages: ChatMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === 'tool');
}

/** Every assistant tool_call id is answered by exactly one tool message, and ids are unique. */
function expectPaired(messages: ChatMessage[]): void {
  const callIds = messages.flatMap((m) =>
    m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [],
  );
  const answered = toolMessages(messages).map((m) => m.tool_call_id);
  expect(new Set(callIds).size).toBe(callIds.length);
  expect(answered.sort()).toEqual([...callIds].sort());
}

describe('reused tool-call ids', () => {
  for (const stream of [false, true]) {
    describe(`when a server numbers ids per turn (${stream ? 'streamed' : 'not streamed'})`, () => {
      it('should run the second call too, with its own result', async () => {
        const lookup = createRecordingTool('lookup', { execute: (args) => `result for ${args.q}` });
        env.emu.script([
          toolTurn(['call_0', '{"q":"a"}']),
          toolTurn(['call_0', '{"q":"b"}']),
          { message: { content: 'done' } },
        ]);
        const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [lookup.tool] });
        const result = await (stream ? agent.stream('go').result : agent.run('go'));
        expect(lookup.calls.map((c) => c.args.q)).toEqual(['a', 'b']);
        const tools = toolMessages(result.messages);
        expect(tools.map((m) => m.content)).toEqual(['result for a', 'result for b']);
        expectPaired(result.messages);
        // The service saw distinct ids, each paired with its own answer.
        const last = chatRequests(env.emu).at(-1)!.messages as ChatMessage[];
        expectPaired(last);
      });
    });
  }

  describe('when two calls of one turn share an id', () => {
    it('should run both, in order, each answered by its own tool message', async () => {
      const lookup = createRecordingTool('lookup', { execute: (args) => `result for ${args.q}` });
      env.emu.script([
        toolTurn(['dup', '{"q":"a"}'], ['dup', '{"q":"b"}']),
        { message: { content: 'done' } },
      ]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [lookup.tool] });
      const result = await agent.run('go');
      expect(lookup.calls.map((c) => c.args.q)).toEqual(['a', 'b']);
      expect(toolMessages(result.messages).map((m) => [m.tool_call_id, m.content])).toEqual([
        ['dup', 'result for a'],
        ['dup_2', 'result for b'],
      ]);
      expectPaired(result.messages);
    });
  });

  describe('when a run with reused ids fails and resumes from its saved state', () => {
    it('should still run each finished call exactly once', async () => {
      const lookup = createRecordingTool('lookup', { execute: (args) => `result for ${args.q}` });
      env.emu.script([
        toolTurn(['call_0', '{"q":"a"}']),
        toolTurn(['call_0', '{"q":"b"}']),
        { error: { status: 500 } },
      ]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [lookup.tool] });
      const error = (await agent.run('go').catch((e: unknown) => e)) as { state: RunState };
      const saved = JSON.parse(JSON.stringify(error.state));
      env.emu.script([toolTurn(['call_0', '{"q":"c"}']), { message: { content: 'done' } }]);
      const { RunState: State } = await import('../../src/agent/run-state.js');
      const result = await agent.run(State.fromJSON(saved, agent));
      expect(lookup.calls.map((c) => c.args.q)).toEqual(['a', 'b', 'c']);
      expect(toolMessages(result.messages).map((m) => m.content)).toEqual([
        'result for a',
        'result for b',
        'result for c',
      ]);
      expectPaired(result.messages);
    });
  });
});
