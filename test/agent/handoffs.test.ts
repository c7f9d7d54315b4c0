import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MaxTurnsExceededError } from '../../src/agent/errors.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { handoff, handoffFilters } from '../../src/agent/handoffs/handoff.js';
import { RunState } from '../../src/agent/run-state.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { answer } from '../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const call = (id: string, name: string, args = '{}') => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: args } }] },
});

function createAgents(options: { filter?: boolean } = {}) {
  const refund = createRecordingTool('refund_order', { needsApproval: true });
  const lookup = createRecordingTool('lookup_order');
  const billing = new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    name: 'billing',
    handoffDescription: 'invoices, refunds and payments',
    instructions: 'You handle billing.',
    tools: [refund.tool, lookup.tool],
  });
  const support = new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    name: 'support',
    instructions: 'You fix problems.',
  });
  const triage = new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    name: 'triage',
    instructions: 'Route the customer.',
    handoffs: options.filter
      ? [handoff(billing, { inputFilter: handoffFilters.removeToolHistory }), support]
      : [billing, support],
  });
  return { triage, billing, support, refund, lookup };
}

const toolNames = (request: Record<string, unknown> | undefined) =>
  ((request?.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('handoffs', () => {
  describe('when the model calls transfer_to_billing', () => {
    it('should continue with billing (its instructions and tools), emit handoff and say billing answered last', async () => {
      const { triage } = createAgents();
      env.emu.script([call('c1', 'transfer_to_billing'), answer('Your refund is on its way.')]);
      const stream = triage.stream('I want a refund');
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      expect(result.text).toBe('Your refund is on its way.');
      expect(result.lastAgent).toBe('billing');
      expect(events.filter((event) => event.type === 'handoff')).toEqual([
        { type: 'handoff', from: 'triage', to: 'billing', toolCallId: 'c1' },
      ]);
      expect(events.filter((event) => event.type === 'start')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
      const [first, second] = chatRequests(env.emu);
      expect(toolNames(first)).toEqual(['transfer_to_billing', 'transfer_to_support']);
      expect(
        (first?.tools as Array<{ function: { description: string } }> | undefined)?.[0]?.function.description,
      ).toContain('invoices, refunds and payments');
      expect(toolNames(second)).toEqual(['refund_order', 'lookup_order']);
      expect(second?.messages[0]).toEqual({ role: 'system', content: 'You handle billing.' });
      expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
      expect(result.steps).toHaveLength(2);
    });
  });

  describe('when the handoff has an input filter', () => {
    it('should send the next agent only the filtered history', async () => {
      const { triage } = createAgents({ filter: true });
      env.emu.script([call('c1', 'transfer_to_billing'), answer('Done.')]);
      await triage.run('I want a refund');
      const second = chatRequests(env.emu)[1];
      expect(second?.messages).toEqual([
        { role: 'system', content: 'You handle billing.' },
        { role: 'user', content: 'I want a refund' },
      ]);
    });
  });

  describe('when the agent that took over pauses for an approval', () => {
    it('should resume from the saved state with that agent and run the approved call once', async () => {
      const first = createAgents();
      env.emu.script([
        call('c1', 'transfer_to_billing'),
        call('c2', 'refund_order', '{"order":7}'),
        answer('Refunded.'),
      ]);
      const paused = await first.triage.run('Refund order 7');
      expect(paused.status).toBe('interrupted');
      expect(paused.lastAgent).toBe('billing');
      expect(paused.interruptions.map((item) => item.toolName)).toEqual(['refund_order']);

      const second = createAgents();
      const state = RunState.fromJSON(JSON.stringify(paused.state), second.triage);
      state.approve('c2');
      const result = await second.triage.run(state);
      expect(result.text).toBe('Refunded.');
      expect(result.lastAgent).toBe('billing');
      expect(second.refund.calls.map((entry) => entry.args)).toEqual([{ order: 7 }]);
      expect(first.refund.calls).toHaveLength(0);
      expect(toolNames(chatRequests(env.emu).at(-1))).toEqual(['refund_order', 'lookup_order']);
    });
  });

  describe('when the agent that took over reaches maxTurns', () => {
    it('should throw MaxTurnsExceededError whose result names that agent as lastAgent', async () => {
      const { triage } = createAgents();
      env.emu.script([
        call('c1', 'transfer_to_billing'),
        call('c2', 'lookup_order', '{"order":7}'),
        call('c3', 'lookup_order', '{"order":8}'),
      ]);
      const error = await triage.run('Where is order 7?', { maxTurns: 3 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MaxTurnsExceededError);
      expect((error as MaxTurnsExceededError).result.lastAgent).toBe('billing');
    });
  });

  describe('when an agent name makes an invalid tool name', () => {
    it('should refuse it when the handoff is built', () => {
      const bad = new Agent({ client: env.client, model: 'svc-3.5-flash', name: 'billing team' });
      expect(() => handoff(bad)).toThrow(/transfer_to_billing team.*must match/);
    });
  });
});
