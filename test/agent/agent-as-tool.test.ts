import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent, SubAgentEvent } from '../../src/agent/events.js';
import { chatRequests, useAgentTestEnv } from './helpers/agent-test-env.js';

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
});
