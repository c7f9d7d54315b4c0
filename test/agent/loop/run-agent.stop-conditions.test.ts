import { describe, expect, it } from 'vitest';
import { MaxTurnsExceededError } from '../../../src/agent/errors.js';
import { hasToolCall, isStepCount } from '../../../src/agent/stop-conditions.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when the run reaches maxTurns while the model still asks for tools', () => {
    it('should throw MaxTurnsExceededError with the partial result, the last calls answered but not run', async () => {
      const weather = createRecordingTool('get_weather');
      const call = (id: string) => ({
        message: {
          content: '',
          tool_calls: [{ id, function: { name: 'get_weather', arguments: `{"n":"${id}"}` } }],
        },
      });
      env.emu.script([call('c1'), call('c2')]);
      const error = await createTestAgent(env, { tools: [weather.tool], maxTurns: 2 })
        .run('loop')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MaxTurnsExceededError);
      const maxError = error as MaxTurnsExceededError;
      expect(weather.calls).toHaveLength(1);
      expect(maxError.result.messages).toHaveLength(5);
      expect(maxError.result.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c2',
        content: expect.stringContaining('limit of 2 turns'),
      });
      expect(maxError.state.messages).toEqual(maxError.result.messages);
      expect(maxError.result.lastAgent).toBe('agent');
      expect(Object.keys(maxError)).not.toContain('state');
      const json = JSON.stringify(maxError);
      expect(JSON.parse(json)).toMatchObject({ name: 'MaxTurnsExceededError', maxTurns: 2 });
      expect(json).not.toContain('get_weather');
      expect(json).not.toContain(env.emu.apiKey);
    });
  });

  describe('when stopWhen conditions are given', () => {
    it('should stop after the step that called the named tool', async () => {
      const done = createRecordingTool('submit');
      env.emu.script([
        {
          message: { content: '', tool_calls: [{ id: 's1', function: { name: 'submit', arguments: '{}' } }] },
        },
      ]);
      const result = await createTestAgent(env, { tools: [done.tool], stopWhen: hasToolCall('submit') }).run(
        'go',
      );
      expect(done.calls).toHaveLength(1);
      expect(result.steps).toHaveLength(1);
      expect(result.status).toBe('completed');
      expect(chatRequests(env.emu)).toHaveLength(1);
      expect(result.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's1' });
    });

    it('should stop at a step count', async () => {
      const t = createRecordingTool('t');
      const turn = (id: string) => ({
        message: { content: '', tool_calls: [{ id, function: { name: 't', arguments: `{"i":"${id}"}` } }] },
      });
      env.emu.script([turn('a'), turn('b'), turn('c')]);
      const result = await createTestAgent(env, { tools: [t.tool], stopWhen: [isStepCount(2)] }).run('go');
      expect(result.steps).toHaveLength(2);
      expect(chatRequests(env.emu)).toHaveLength(2);
    });

    it('should always stop a loop that repeats the same call with the same arguments three times', async () => {
      const t = createRecordingTool('t');
      const turn = (id: string, args: string) => ({
        message: { content: '', tool_calls: [{ id, function: { name: 't', arguments: args } }] },
      });
      env.emu.script([
        turn('a', '{"q":1,"r":2}'),
        turn('b', '{"r":2,"q":1}'),
        turn('c', '{ "q": 1, "r": 2 }'),
        turn('d', '{}'),
      ]);
      const result = await createTestAgent(env, { tools: [t.tool] }).run('go');
      expect(result.steps).toHaveLength(3);
      expect(t.calls).toHaveLength(3);
      expect(chatRequests(env.emu)).toHaveLength(3);
    });
  });
});
