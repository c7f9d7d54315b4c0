import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent, SubAgentEvent } from '../../src/agent/events.js';
import { RunState } from '../../src/agent/run-state.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const call = (id: string, name: string, args: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: args } }] },
});

describe('agent.asTool', () => {
  describe('when the parent calls the sub-agent', () => {
    it('should answer with its text, forward its events by name and add its usage to the parent', async () => {
      const researcher = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'researcher',
        instructions: 'Research.',
      });
      const writer = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'writer',
        tools: [researcher.asTool({ name: 'research', description: 'Finds facts about a topic.' })],
      });
      env.emu.script([
        call('c1', 'research', '{"input":"facts about otters"}'),
        { message: { content: 'Otters hold hands while sleeping.' } },
        { message: { content: 'Did you know? Otters hold hands.' } },
      ]);
      const stream = writer.stream('Write a fun fact about otters');
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      expect(result.text).toBe('Did you know? Otters hold hands.');
      const requests = chatRequests(env.emu);
      expect(requests[1]?.messages).toEqual([
        { role: 'system', content: 'Research.' },
        { role: 'user', content: 'facts about otters' },
      ]);
      expect(requests[2]?.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Otters hold hands while sleeping.',
      });
      const forwarded = events.filter((event): event is SubAgentEvent => event.type === 'sub-agent');
      expect(new Set(forwarded.map((event) => `${event.agent}/${event.toolCallId}`))).toEqual(
        new Set(['researcher/c1']),
      );
      expect(forwarded.map((event) => event.event.type)).toEqual(
        expect.arrayContaining(['start', 'text-delta', 'finish']),
      );
      const subFinish = forwarded.find((event) => event.event.type === 'finish')?.event;
      const subTokens = subFinish?.type === 'finish' ? subFinish.usage.totalTokens : 0;
      expect(subTokens).toBeGreaterThan(0);
      const ownTokens = result.steps.reduce((sum, step) => sum + step.usage.totalTokens, 0);
      expect(result.usage.totalTokens).toBe(ownTokens + subTokens);
    });
  });

  describe('when both agents have prices', () => {
    it('should add the sub-agent cost to the parent usage.cost', async () => {
      // One unit per token, cached or not: every cost equals its tokens.
      const prices = { 'svc-3.5-flash': { input: 1e6, cachedInput: 1e6, output: 1e6 } };
      const researcher = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'researcher',
        prices,
      });
      const writer = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        prices,
        tools: [researcher.asTool({ name: 'research', description: 'Finds facts about a topic.' })],
      });
      env.emu.script([
        call('c1', 'research', '{"input":"facts about otters"}'),
        { message: { content: 'Otters hold hands while sleeping.' } },
        { message: { content: 'Did you know? Otters hold hands.' } },
      ]);
      const result = await writer.run('Write a fun fact about otters');

      const ownCost = result.steps.reduce((sum, step) => sum + (step.usage.cost ?? 0), 0);
      expect(ownCost).toBeGreaterThan(0);
      const { promptTokens, completionTokens } = result.usage;
      expect(result.usage.cost).toBeCloseTo(promptTokens + completionTokens, 6);
      expect(result.usage.cost).toBeGreaterThan(ownCost);
    });
  });

  describe('when the sub-agent has structured output', () => {
    it('should hand the parent its output as JSON', async () => {
      const classifier = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'classifier',
        output: z.object({ category: z.enum(['billing', 'support']) }),
      });
      const parent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [classifier.asTool({ name: 'classify', description: 'Classifies a ticket.' })],
      });
      env.emu.script([
        call('c1', 'classify', '{"input":"my invoice is wrong"}'),
        { message: { content: '{"category":"billing"}' } },
        { message: { content: 'It is a billing ticket.' } },
      ]);
      const result = await parent.run('Classify: my invoice is wrong');
      expect(result.steps[0]?.toolResults[0]).toMatchObject({
        status: 'ok',
        content: '{"category":"billing"}',
      });
    });
  });

  describe('when the sub-agent pauses for an approval', () => {
    function createDesk() {
      const lookup = createRecordingTool('lookup_order');
      const refund = createRecordingTool('refund_order', { needsApproval: true });
      const payments = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'payments',
        tools: [lookup.tool, refund.tool],
      });
      const desk = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'desk',
        tools: [payments.asTool({ name: 'payments', description: 'Handles payments.' })],
      });
      return { desk, lookup, refund };
    }

    it('should pause the parent with the inner call, and resume the whole tree from its JSON exactly once', async () => {
      const first = createDesk();
      env.emu.script([
        call('p1', 'payments', '{"input":"refund order 7"}'),
        {
          message: {
            content: '',
            tool_calls: [
              { id: 's1', function: { name: 'lookup_order', arguments: '{"order":7}' } },
              { id: 's2', function: { name: 'refund_order', arguments: '{"order":7}' } },
            ],
          },
        },
        { message: { content: 'Refunded order 7.' } },
        { message: { content: 'All done.' } },
      ]);
      const stream = first.desk.stream('Refund order 7');
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const paused = await stream.result;

      expect(paused.status).toBe('interrupted');
      expect(paused.interruptions).toEqual([
        { toolCallId: 's2', toolName: 'refund_order', input: { order: 7 } },
      ]);
      expect(events).toContainEqual({
        type: 'tool-approval-request',
        toolCallId: 's2',
        toolName: 'refund_order',
        input: { order: 7 },
      });
      expect(events.some((event) => event.type === 'tool-error')).toBe(false);
      expect(first.lookup.calls).toHaveLength(1);
      expect(first.refund.calls).toHaveLength(0);

      // Another process: fresh agents, the saved state, one decision on the inner call.
      const second = createDesk();
      const state = RunState.fromJSON(JSON.stringify(paused.state), second.desk);
      expect(state.interruptions.map((item) => item.toolCallId)).toEqual(['s2']);
      state.approve('s2');
      const result = await second.desk.run(state);

      expect(result.status).toBe('completed');
      expect(result.text).toBe('All done.');
      expect(second.refund.calls.map((entry) => entry.args)).toEqual([{ order: 7 }]);
      expect(second.lookup.calls).toHaveLength(0);
      expect(result.messages).toContainEqual({
        role: 'tool',
        tool_call_id: 'p1',
        content: 'Refunded order 7.',
      });
      const parentTokens = result.steps.reduce((sum, step) => sum + step.usage.totalTokens, 0);
      expect(result.usage.totalTokens).toBeGreaterThan(parentTokens);
      // The sub-agent's resumed request carried both of its tool results.
      const subResume = chatRequests(env.emu)[2];
      expect(
        subResume?.messages.filter((message) => (message as { role: string }).role === 'tool'),
      ).toHaveLength(2);
    });

    it('should tell the sub-agent about a rejection and let the parent continue', async () => {
      const first = createDesk();
      env.emu.script([
        call('p1', 'payments', '{"input":"refund order 8"}'),
        call('s2', 'refund_order', '{"order":8}'),
        { message: { content: 'The refund was not approved.' } },
        { message: { content: 'No refund today.' } },
      ]);
      const paused = await first.desk.run('Refund order 8');
      const result = await first.desk.run(paused.state.reject('s2', 'over the limit'));
      expect(result.text).toBe('No refund today.');
      expect(first.refund.calls).toHaveLength(0);
      const subResume = chatRequests(env.emu)[2];
      expect(subResume?.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's2' });
      expect(String((subResume?.messages.at(-1) as { content?: string } | undefined)?.content)).toContain(
        'over the limit',
      );
    });
  });
});
