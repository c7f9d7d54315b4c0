import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { RunStateError, ToolApprovalError } from '../../src/agent/errors.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import type { ToolMessage } from '../../src/api/types/chat.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { toolTurn } from '../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

function createTools() {
  const list = createRecordingTool('list_files');
  const remove = createRecordingTool('delete_file', { needsApproval: true });
  const archive = createRecordingTool('archive_file', {
    needsApproval: (args) => args.permanent === true,
  });
  return { list, remove, archive, tools: [list.tool, remove.tool, archive.tool] };
}

function createAgent(tools: ReturnType<typeof createTools>['tools']) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', tools });
}

describe('tool approvals', () => {
  describe('when a turn mixes a call needing approval with one that does not', () => {
    it('should pause with interruptions, run the other call at once and keep its result', async () => {
      const t = createTools();
      env.emu.script([toolTurn(['c_list', 'list_files'], ['c_del', 'delete_file', '{"id":"f1"}'])]);
      const stream = createAgent(t.tools).stream('Clean up');
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      expect(result.status).toBe('interrupted');
      expect(result.interruptions).toEqual([
        { toolCallId: 'c_del', toolName: 'delete_file', input: { id: 'f1' } },
      ]);
      expect(t.list.calls).toHaveLength(1);
      expect(t.remove.calls).toHaveLength(0);
      expect(events.map((event) => event.type)).toContain('tool-approval-request');
      expect(events.at(-1)?.type).toBe('finish');
      expect(result.state.ledger.get('c_list')?.status).toBe('ok');
    });
  });

  describe('when the paused state goes through JSON into a new Agent and is approved', () => {
    it('should run only the approved call and continue, answering in call order', async () => {
      const first = createTools();
      env.emu.script([
        toolTurn(['c_list', 'list_files'], ['c_del', 'delete_file', '{"id":"f1"}']),
        { message: { content: 'Deleted.' } },
      ]);
      const paused = await createAgent(first.tools).run('Clean up');
      const text = JSON.stringify(paused.state);
      expect(JSON.parse(text).$schemaVersion).toBe(2);

      // Another process: fresh tools, fresh agent.
      const second = createTools();
      const agent = createAgent(second.tools);
      const state = RunState.fromJSON(text, agent);
      expect(state.interruptions.map((item) => item.toolCallId)).toEqual(['c_del']);
      state.approve('c_del');
      const result = await agent.run(state);

      expect(result.status).toBe('completed');
      expect(result.text).toBe('Deleted.');
      expect(second.remove.calls.map((call) => call.args)).toEqual([{ id: 'f1' }]);
      expect(second.list.calls).toHaveLength(0);
      expect(first.list.calls).toHaveLength(1);
      const sent = chatRequests(env.emu)[1]!.messages;
      expect(sent.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'c_list', content: 'list_files ok {}' },
        { role: 'tool', tool_call_id: 'c_del', content: 'delete_file ok {"id":"f1"}' },
      ]);
    });
  });

  describe('when a paused call is rejected with a reason', () => {
    it('should not run it and tell the model why', async () => {
      const t = createTools();
      env.emu.script([
        toolTurn(['c_del', 'delete_file', '{"id":"f1"}']),
        { message: { content: 'Understood.' } },
      ]);
      const agent = createAgent(t.tools);
      const paused = await agent.run('Delete f1');
      paused.state.reject('c_del', 'f1 is the only backup');
      const stream = agent.stream(paused.state);
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      expect(t.remove.calls).toHaveLength(0);
      const toolMessage = result.messages.find((m): m is ToolMessage => m.role === 'tool');
      expect(toolMessage?.content).toContain('rejected');
      expect(toolMessage?.content).toContain('f1 is the only backup');
      expect(events.find((event) => event.type === 'tool-error')).toMatchObject({
        toolCallId: 'c_del',
        error: expect.any(ToolApprovalError),
      });
      expect(result.steps[0]?.toolResults[0]?.status).toBe('rejected');
    });
  });

  describe('when two calls of one turn need approval', () => {
    it('should wait for both, then resume with one approved and one rejected', async () => {
      const t = createTools();
      env.emu.script([
        toolTurn(
          ['c1', 'delete_file', '{"id":"a"}'],
          ['c2', 'archive_file', '{"permanent":true}'],
          ['c3', 'archive_file', '{"permanent":false}'],
        ),
        { message: { content: 'Done.' } },
      ]);
      const agent = createAgent(t.tools);
      const paused = await agent.run('Tidy');
      expect(paused.interruptions.map((item) => item.toolCallId)).toEqual(['c1', 'c2']);
      expect(t.archive.calls.map((call) => call.args)).toEqual([{ permanent: false }]);

      paused.state.approve('c1');
      const stillPaused = await agent.run(paused.state);
      expect(stillPaused.status).toBe('interrupted');
      expect(stillPaused.interruptions.map((item) => item.toolCallId)).toEqual(['c2']);
      expect(t.remove.calls).toHaveLength(1);

      stillPaused.state.reject('c2');
      const result = await agent.run(stillPaused.state);
      expect(result.status).toBe('completed');
      expect(t.remove.calls).toHaveLength(1);
      expect(t.archive.calls).toHaveLength(1);
      expect(
        result.messages.filter((m): m is ToolMessage => m.role === 'tool').map((m) => m.tool_call_id),
      ).toEqual(['c1', 'c2', 'c3']);
      expect(chatRequests(env.emu)).toHaveLength(2);
    });
  });

  describe('when approvals are needed in consecutive turns', () => {
    it('should pause twice and finish after both are approved', async () => {
      const t = createTools();
      env.emu.script([
        toolTurn(['c1', 'delete_file', '{"id":"a"}']),
        toolTurn(['c2', 'delete_file', '{"id":"b"}']),
        { message: { content: 'Both gone.' } },
      ]);
      const agent = createAgent(t.tools);
      const first = await agent.run('Delete a then b');
      first.state.approve('c1');
      const second = await agent.run(RunState.fromJSON(JSON.stringify(first.state), agent).approve('c1'));
      expect(second.status).toBe('interrupted');
      expect(second.interruptions.map((item) => item.toolCallId)).toEqual(['c2']);
      second.state.approve('c2');
      const result = await agent.run(second.state);
      expect(result.text).toBe('Both gone.');
      expect(t.remove.calls.map((call) => call.args)).toEqual([{ id: 'a' }, { id: 'b' }]);
      expect(result.steps).toHaveLength(3);
    });
  });

  describe('when a decision names a call that does not wait', () => {
    it('should throw ToolApprovalError naming the waiting calls', async () => {
      const t = createTools();
      env.emu.script([toolTurn(['c1', 'delete_file'], ['c2', 'list_files'])]);
      const paused = await createAgent(t.tools).run('x');
      expect(() => paused.state.approve('c2')).toThrow(ToolApprovalError);
      expect(() => paused.state.reject('zzz')).toThrow(/waiting: c1/);
    });
  });

  describe('when a saved state cannot be read back', () => {
    it('should refuse an unknown $schemaVersion, a bad shape and a missing tool', async () => {
      const t = createTools();
      env.emu.script([toolTurn(['c1', 'delete_file'])]);
      const agent = createAgent(t.tools);
      const paused = await agent.run('x');
      const json = paused.state.toJSON();
      expect(() => RunState.fromJSON(JSON.stringify({ ...json, $schemaVersion: 99 }), agent)).toThrow(
        /\$schemaVersion 99 is not supported/,
      );
      expect(() => RunState.fromJSON(JSON.stringify({ ...json, turn: 'x' }), agent)).toThrow(RunStateError);
      const other = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [t.list.tool] });
      expect(() => RunState.fromJSON(JSON.stringify(json), other)).toThrow(/no tool "delete_file"/);
    });
  });
});
