import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/tools/define-tool.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when the run is given a context', () => {
    it('should hand it, the client and the call id to the tools', async () => {
      const whoami = createRecordingTool('whoami', {
        execute: (_args, ctx) => `${(ctx.context as { userId: string }).userId} ${ctx.client === env.client}`,
      });
      env.emu.script([
        { message: { content: '', tool_calls: [{ id: 'w1', function: { name: 'whoami', arguments: '' } }] } },
        { message: { content: 'ok' } },
      ]);
      const result = await createTestAgent(env, { tools: [whoami.tool] }).run('who?', {
        context: { userId: 'u42' },
      });
      expect(result.messages[2]).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'u42 true' });
      expect(whoami.calls[0]?.toolCallId).toBe('w1');
    });
  });

  describe('when hooks are given', () => {
    it('should call onStepStart before each request and onStepFinish after each step', async () => {
      const seen: string[] = [];
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'h1', function: { name: 'get_weather', arguments: '{}' } }],
          },
        },
        { message: { content: 'ok' } },
      ]);
      await createTestAgent(env, {
        tools: [weather.tool],
        hooks: {
          onStepStart: ({ step, messages }) => {
            seen.push(`start ${step} ${messages.length}`);
          },
          onStepFinish: ({ step }) => {
            seen.push(`finish ${step.index} ${step.toolResults.length}`);
          },
        },
      }).run('x');
      expect(seen).toEqual(['start 0 1', 'finish 0 1', 'start 1 3', 'finish 1 0']);
    });
  });

  describe('when the default model of the emulator answers', () => {
    it('should call the matching tool and answer with its result', async () => {
      const weather = defineTool({
        name: 'get_weather',
        description: 'Get the current weather for a city',
        parameters: z.object({ city: z.string().describe('City name') }),
        execute: ({ city }) => `18 degrees in ${city}`,
      });
      const result = await createTestAgent(env, { tools: [weather] }).run('What is the weather in Paris?');
      expect(result.steps.length).toBeGreaterThanOrEqual(2);
      expect(result.steps[0]?.toolCalls[0]?.toolName).toBe('get_weather');
      expect(result.text).toContain('18 degrees');
      expect(result.usage.totalTokens).toBeGreaterThan(0);
    });
  });
});
