import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ToolApprovalError } from '../../src/agent/errors.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { toolTurn } from '../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

// Declared as the AI SDK declares a tool the browser answers: a schema, no execute.
const askLocation = () =>
  defineTool({
    name: 'get_location',
    description: 'The location of the user, asked from the browser.',
    parameters: z.object({ precise: z.boolean() }),
  });

function createAgent() {
  const list = createRecordingTool('list_files');
  const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [askLocation(), list.tool] });
  return { agent, list };
}

describe('client-side tools (no execute)', () => {
  it('should pause with the call pending, announce it without an approval request and run the other calls', async () => {
    env.emu.script([toolTurn(['c_loc', 'get_location', '{"precise":true}'], ['c_list', 'list_files'])]);
    const { agent, list } = createAgent();
    const stream = agent.stream('Where am I?');
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;

    expect(result.status).toBe('interrupted');
    expect(result.interruptions).toEqual([
      { toolCallId: 'c_loc', toolName: 'get_location', input: { precise: true }, clientSide: true },
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool-call', toolCallId: 'c_loc', input: { precise: true } }),
    );
    expect(events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(list.calls).toHaveLength(1);
  });

  it('should resume from JSON in a new agent with the supplied output, which the model reads', async () => {
    env.emu.script([
      toolTurn(['c_loc', 'get_location', '{"precise":false}']),
      { message: { content: 'You are in Paris.' } },
    ]);
    const paused = await createAgent().agent.run('Where am I?');
    const text = JSON.stringify(paused.state);

    const { agent } = createAgent();
    const state = RunState.fromJSON(text, agent);
    expect(() => state.approve('c_loc')).toThrow(ToolApprovalError);
    state.supplyOutput('c_loc', { city: 'Paris' });
    expect(() => state.supplyOutput('c_loc', { city: 'Rome' })).toThrow(ToolApprovalError);
    expect(() => state.supplyOutput('c_other', {})).toThrow(ToolApprovalError);
    const result = await agent.run(state);

    expect(result.status).toBe('completed');
    expect(result.text).toBe('You are in Paris.');
    const sent = chatRequests(env.emu)[1]!.messages;
    expect(sent.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c_loc', content: '{"city":"Paris"}' });
    expect(result.steps[0]!.toolResults).toEqual([
      expect.objectContaining({ toolCallId: 'c_loc', status: 'ok', output: { city: 'Paris' } }),
    ]);
  });

  it('should tell the model when the paused call is rejected instead', async () => {
    env.emu.script([
      toolTurn(['c_loc', 'get_location', '{"precise":true}']),
      { message: { content: 'OK.' } },
    ]);
    const { agent } = createAgent();
    const paused = await agent.run('Where am I?');
    const state = RunState.fromJSON(JSON.stringify(paused.state), agent);
    state.reject('c_loc', 'The user did not share it.');
    const result = await agent.run(state);
    expect(result.status).toBe('completed');
    const tool = chatRequests(env.emu)[1]!.messages.at(-1) as { content: string };
    expect(tool.content).toContain('The user did not share it.');
  });
});
