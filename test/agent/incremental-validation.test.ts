import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { validatedPrefixLength } from '../../src/agent/validated-prefix.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { chatRequests, useAgentTestEnv } from './helpers/agent-test-env.js';
import { createRecordingTool } from './helpers/tools.js';

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
});

describe('validatedPrefixLength', () => {
  const user: ChatMessage = { role: 'user', content: 'hi' };
  const answer: ChatMessage = { role: 'assistant', content: 'hello' };

  describe('when the next request re-sends the previous messages', () => {
    it('should count them, an equal rebuilt system message included', () => {
      const previous: ChatMessage[] = [{ role: 'system', content: 'S' }, user];
      const next: ChatMessage[] = [{ role: 'system', content: 'S' }, user, answer];
      expect(validatedPrefixLength(previous, next)).toBe(2);
    });
  });

  describe('when a message was replaced or the instructions changed', () => {
    it('should stop counting at the first different message', () => {
      expect(validatedPrefixLength([user, answer], [user, { ...answer }])).toBe(1);
      expect(
        validatedPrefixLength(
          [{ role: 'system', content: 'S' }, user],
          [{ role: 'system', content: 'T' }, user],
        ),
      ).toBe(0);
      expect(validatedPrefixLength(undefined, [user])).toBe(0);
    });
  });
});
