import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { RunState } from '../../src/agent/run-state.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes a file',
  parameters: z.object({ id: z.string() }),
  needsApproval: true,
  execute: ({ id }) => ({ deleted: id }),
});

describe('RunState.fromJSON', () => {
  describe('when the paused turn also called a tool the agent does not have', () => {
    it('should read the state back and resume, the unknown call keeping its error answer', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [deleteFile] });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [
              { id: 'c1', function: { name: 'nope', arguments: '{}' } },
              { id: 'c2', function: { name: 'delete_file', arguments: '{"id":"f1"}' } },
            ],
          },
        },
        { message: { content: 'Deleted f1.' } },
      ]);
      const paused = await agent.run('Delete f1');
      expect(paused.status).toBe('interrupted');
      const state = RunState.fromJSON(JSON.stringify(paused.state), agent);
      state.approve('c2');
      const resumed = await agent.run(state);
      expect(resumed.status).toBe('completed');
      expect(resumed.text).toBe('Deleted f1.');
      const toolMessages = resumed.messages.filter((message) => message.role === 'tool');
      expect(
        toolMessages.map((message) => (message as { tool_call_id: string }).tool_call_id).sort(),
      ).toEqual(['c1', 'c2']);
      expect(
        JSON.stringify(toolMessages.find((m) => (m as { tool_call_id: string }).tool_call_id === 'c1')),
      ).toContain('nope');
    });
  });

  describe('when a tool the saved run waits on is missing', () => {
    it('should still refuse the state, naming the tool', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [deleteFile] });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'c2', function: { name: 'delete_file', arguments: '{"id":"f1"}' } }],
          },
        },
      ]);
      const paused = await agent.run('Delete f1');
      const bare = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [] });
      expect(() => RunState.fromJSON(JSON.stringify(paused.state), bare)).toThrow(/"delete_file"/);
    });
  });
});
