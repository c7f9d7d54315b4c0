import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentOptionsError } from '../../src/agent/errors.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 21 }),
});

function chatPaths(): string[] {
  return env.emu
    .requests()
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.path);
}

describe('Agent channel option', () => {
  describe("when channel is 'plan' with svc-router-v1", () => {
    it('should send every turn to the plan channel, tool turns included', async () => {
      const agent = new Agent({
        client: env.client,
        model: 'svc-router-v1',
        channel: 'plan',
        tools: [weather],
      });
      const result = await agent.run('What is the weather in Paris?');
      expect(result.status).toBe('completed');
      expect(result.steps.flatMap((step) => step.toolCalls.map((call) => call.toolName))).toContain(
        'get_weather',
      );
      const paths = chatPaths();
      expect(paths.length).toBeGreaterThan(1);
      expect(new Set(paths)).toEqual(new Set(['/svc_plan/v1/chat/completions']));
    });

    it('should stream from the plan channel too', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-router-v1', channel: 'plan' });
      const result = await agent.stream('Hello there').result;
      expect(result.text).not.toBe('');
      expect(chatPaths()).toEqual(['/svc_plan/v1/chat/completions']);
    });
  });

  describe('when svc-router-v1 is used without the plan channel', () => {
    it('should refuse it at construction and say what to write', () => {
      const create = () => new Agent({ client: env.client, model: 'svc-router-v1' });
      expect(create).toThrow(AgentOptionsError);
      expect(create).toThrow("new Agent({ client, model: 'svc-router-v1', channel: 'plan' })");
      expect(env.emu.requests()).toEqual([]);
    });
  });

  describe('when the plan channel gets another model', () => {
    it('should name the channel and the one model it serves', () => {
      const create = () => new Agent({ client: env.client, model: 'svc-3.5-flash', channel: 'plan' });
      expect(create).toThrow(AgentOptionsError);
      expect(create).toThrow(/channel: the plan channel serves only "svc-router-v1", not "svc-3.5-flash"/);
    });
  });

  describe('when channel is not a known channel', () => {
    it('should name the field and the values', () => {
      const create = () =>
        new Agent({ client: env.client, model: 'svc-3.5-flash', channel: 'beta' as never });
      expect(create).toThrow('channel: must be "default" or "plan"');
    });
  });
});
