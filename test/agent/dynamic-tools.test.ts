import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { DynamicToolsArgs } from '../../src/agent/dynamic-tools.js';
import { RunState } from '../../src/agent/run-state.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const call = (id: string, name: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: '{}' } }] },
});
const toolNames = (request: Record<string, unknown> | undefined) =>
  ((request?.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('tools as a function', () => {
  describe('when the function answers different tools per step', () => {
    it('should send and run each step’s tools, asked with step, messages and context', async () => {
      const search = createRecordingTool('search');
      const publish = createRecordingTool('publish', { needsApproval: true });
      const asked: Array<{ step: number; messages: number; context: unknown }> = [];
      const tools = ({ step, messages, context }: DynamicToolsArgs<{ user: string }>) => {
        asked.push({ step, messages: messages.length, context });
        return step === 0 ? [search.tool] : [publish.tool];
      };
      const agent = new Agent<{ user: string }>({ client: env.client, model: 'svc-3.5-flash', tools });
      env.emu.script([call('c1', 'search'), call('c2', 'publish'), { message: { content: 'Published.' } }]);
      const paused = await agent.run('Find and publish', { context: { user: 'ada' } });

      expect(toolNames(chatRequests(env.emu)[0])).toEqual(['search']);
      expect(toolNames(chatRequests(env.emu)[1])).toEqual(['publish']);
      expect(asked).toEqual([
        { step: 0, messages: 1, context: { user: 'ada' } },
        { step: 1, messages: 3, context: { user: 'ada' } },
      ]);
      expect(search.calls).toHaveLength(1);
      expect(paused.interruptions.map((item) => item.toolName)).toEqual(['publish']);

      // Resumed in another process: the function is asked again for the paused step's tools.
      const state = RunState.fromJSON(JSON.stringify(paused.state), agent);
      const result = await agent.run(state.approve('c2'), { context: { user: 'ada' } });
      expect(result.text).toBe('Published.');
      expect(publish.calls).toHaveLength(1);
      expect(asked.slice(2).map((entry) => entry.step)).toEqual([1, 2]);
    });
  });

  describe('when the function is async and answers the same array every step', () => {
    it('should work like a static list', async () => {
      const search = createRecordingTool('search');
      const list = [search.tool];
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: async () => list });
      env.emu.script([call('c1', 'search'), { message: { content: 'Done.' } }]);
      const result = await agent.run('Search');
      expect(result.text).toBe('Done.');
      expect(search.calls).toHaveLength(1);
      expect(toolNames(chatRequests(env.emu)[1])).toEqual(['search']);
    });
  });
});
