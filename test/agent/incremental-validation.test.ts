import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const toolTurn = {
  message: { content: '', tool_calls: [{ id: 'h1', function: { name: 'get_weather', arguments: '{}' } }] },
};

describe('Agent request validation across turns', () => {
  describe('when a message added before a later turn breaks a rule', () => {
    it('should refuse that turn with the full-array path, before sending it', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([toolTurn, { message: { content: 'ok' } }]);
      const error = await new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        instructions: 'Be brief.',
        tools: [weather.tool],
        hooks: {
          onStepStart: ({ step, state }) => {
            if (step === 1) state.messages.push({ role: 'tool', tool_call_id: 'nope', content: 'x' });
          },
        },
      })
        .run('Rome?')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      // system, user, assistant (h1), tool (h1), then the bad one at index 4 of the full array.
      expect((error as Error).message).toContain(
        'messages[4].tool_call_id: "nope" is not a tool call id of the preceding assistant message',
      );
      expect((error as Error).name).toBe('RequestValidationError');
      expect(chatRequests(env.emu)).toHaveLength(1);
      expect(weather.calls).toHaveLength(1);
    });
  });

  describe('when the caller passes bad messages on the first turn', () => {
    it('should refuse them before any network call', async () => {
      env.emu.script([{ message: { content: 'ok' } }]);
      const error = await new Agent({ client: env.client, model: 'svc-3.5-flash' })
        .run([{ role: 'user', content: [] }] as unknown as ChatMessage[])
        .catch((e: unknown) => e);
      expect((error as Error).name).toBe('RequestValidationError');
      expect((error as Error).message).toContain('messages[0].content: must not be an empty array');
      expect(chatRequests(env.emu)).toHaveLength(0);
    });
  });

  describe('when the caller edits a message of its history between runs', () => {
    it('should refuse the edited message on the next run, before any network call', async () => {
      env.emu.script([{ message: { content: 'ok' } }, { message: { content: 'ok' } }]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      const history: Record<string, unknown>[] = [{ role: 'user', content: 'Hi' }];
      await agent.run(history as unknown as ChatMessage[]);
      history[0]!.content = [];
      const error = await agent.run(history as unknown as ChatMessage[]).catch((e: unknown) => e);
      expect((error as Error).name).toBe('RequestValidationError');
      expect((error as Error).message).toContain('messages[0].content: must not be an empty array');
      expect(chatRequests(env.emu)).toHaveLength(1);
    });
  });

  describe('when the caller edits a tool definition between runs of a tools function', () => {
    it('should refuse the edited definition on the next run, before any network call', async () => {
      env.emu.script([{ message: { content: 'ok' } }, { message: { content: 'ok' } }]);
      const weather = createRecordingTool('get_weather');
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: () => [weather.tool] });
      await agent.run('Rome?');
      (weather.tool.definition as { function: { name: string } }).function.name = 'get weather';
      const error = await agent.run('Rome?').catch((e: unknown) => e);
      expect((error as Error).name).toBe('RequestValidationError');
      expect((error as Error).message).toContain('tools[0].function.name');
      expect(chatRequests(env.emu)).toHaveLength(1);
    });
  });
});
