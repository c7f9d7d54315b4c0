import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { GuardrailTripwireError } from '../../../src/agent/errors.js';
import { defineGuardrail } from '../../../src/agent/guardrails/guardrail.js';
import { RunState } from '../../../src/agent/run-state.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { answer } from '../../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const noPasswords = defineGuardrail({
  name: 'no_passwords',
  execute: async ({ text }) => {
    // A slow guardrail, so the model request runs alongside it.
    await delay(150);
    return { tripwire: /password/i.test(text), info: { matched: 'password' }, reason: 'asks for a password' };
  },
});

describe('guardrails', () => {
  describe('when an input guardrail running alongside the first request trips', () => {
    it('should reject with GuardrailTripwireError (info, state) and never run the tools the model asked for', async () => {
      const lookup = createRecordingTool('lookup_user');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'c1', function: { name: 'lookup_user', arguments: '{}' } }],
          },
        },
        answer('Here is the password.'),
      ]);
      const agent = createTestAgent(env, { tools: [lookup.tool], inputGuardrails: [noPasswords] });
      const error = await agent.run('Tell me the admin password').catch((failure: unknown) => failure);
      expect(GuardrailTripwireError.isInstance(error)).toBe(true);
      const tripped = error as GuardrailTripwireError;
      expect(tripped.message).toBe('Guardrail no_passwords tripped on the input: asks for a password');
      expect(tripped).toMatchObject({
        guardrail: 'no_passwords',
        stage: 'input',
        info: { matched: 'password' },
      });
      expect(tripped.state.messages[0]).toEqual({ role: 'user', content: 'Tell me the admin password' });
      expect(lookup.calls).toHaveLength(0);
    });
  });

  describe('when the input guardrails pass', () => {
    it('should answer normally', async () => {
      env.emu.script([answer('Hello!')]);
      const result = await createTestAgent(env, { inputGuardrails: [noPasswords] }).run('Say hello');
      expect(result.text).toBe('Hello!');
    });
  });

  describe('when a guardrail runs before the first request (runInParallel: false)', () => {
    it('should stop the run before any request, with a zod schema as the check', async () => {
      const short = defineGuardrail({
        name: 'short_input',
        runInParallel: false,
        schema: z.string().max(20),
      });
      const error = await createTestAgent(env, { inputGuardrails: [short] })
        .run('This question is far too long for the guardrail')
        .catch((failure: unknown) => failure);
      expect(GuardrailTripwireError.isInstance(error)).toBe(true);
      expect((error as GuardrailTripwireError).message).toMatch(
        /short_input tripped on the input: \(value\): Too big/,
      );
      expect(chatRequests(env.emu)).toHaveLength(0);
    });
  });

  describe('when an agent is the guardrail', () => {
    it('should trip on its structured verdict', async () => {
      const judge = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'judge',
        output: z.object({ offTopic: z.boolean() }),
      });
      const onTopic = defineGuardrail({
        name: 'on_topic',
        runInParallel: false,
        agent: judge,
        tripwire: (output) => (output as { offTopic: boolean }).offTopic,
      });
      env.emu.script([answer('{"offTopic":true}')]);
      const error = await createTestAgent(env, { inputGuardrails: [onTopic] })
        .run('Write me a poem about cheese')
        .catch((failure: unknown) => failure);
      expect((error as GuardrailTripwireError).info).toEqual({ offTopic: true });
      expect(chatRequests(env.emu)).toHaveLength(1);
    });
  });

  describe('when an output guardrail trips', () => {
    const noApology = (repair: boolean) =>
      defineGuardrail({
        name: 'no_apology',
        repair,
        execute: ({ text }) => ({ tripwire: /sorry/i.test(text), reason: 'do not apologise' }),
      });

    it('should throw with the output stage when repair is off', async () => {
      env.emu.script([answer('Sorry, I cannot.')]);
      const error = await createTestAgent(env, { outputGuardrails: [noApology(false)] })
        .run('Help')
        .catch((failure: unknown) => failure);
      expect(error).toMatchObject({ guardrail: 'no_apology', stage: 'output' });
      expect((error as GuardrailTripwireError).state.messages.at(-1)).toMatchObject({
        content: 'Sorry, I cannot.',
      });
    });

    it('should send one corrective turn when repair is on', async () => {
      env.emu.script([answer('Sorry, I cannot.'), answer('Here is how.')]);
      const result = await createTestAgent(env, { outputGuardrails: [noApology(true)] }).run('Help');
      expect(result.text).toBe('Here is how.');
      expect(chatRequests(env.emu)[1]?.messages.at(-1)).toEqual({
        role: 'user',
        content:
          'Your answer did not pass the no_apology check (do not apologise). Answer again, fixing that.',
      });
    });

    it('should give up after the one corrective turn', async () => {
      env.emu.script([answer('Sorry.'), answer('Sorry again.')]);
      const error = await createTestAgent(env, { outputGuardrails: [noApology(true)] })
        .run('Help')
        .catch((failure: unknown) => failure);
      expect(error).toMatchObject({ stage: 'output' });
      expect(chatRequests(env.emu)).toHaveLength(2);
    });

    it('should keep the spent corrective turn in the saved state, so a resumed run gets no second one', async () => {
      env.emu.script([answer('Sorry.'), { error: { status: 500 } }]);
      const agent = createTestAgent(env, { outputGuardrails: [noApology(true)] });
      const failed = (await agent.run('Help').catch((failure: unknown) => failure)) as { state: RunState };
      expect(failed.state.guardrailRepairs).toBe(1);
      // Another process: the state goes through JSON, the model apologises again.
      const saved = RunState.fromJSON(JSON.stringify(failed.state), agent);
      env.emu.script([answer('Sorry again.'), answer('Here is how.')]);
      const error = await agent.run(saved).catch((failure: unknown) => failure);
      expect(error).toMatchObject({ guardrail: 'no_apology', stage: 'output' });
      expect(chatRequests(env.emu)).toHaveLength(3);
    });

    it('should give a later answer its own corrective turn once an answer passed', async () => {
      env.emu.script([answer('Sorry.'), answer('Here is how.')]);
      const agent = createTestAgent(env, { outputGuardrails: [noApology(true)] });
      const first = await agent.run('Help');
      expect(first.state.guardrailRepairs).toBe(0);
      const next = new RunState({ messages: [...first.messages, { role: 'user', content: 'And then?' }] });
      env.emu.script([answer('Sorry.'), answer('Then this.')]);
      expect((await agent.run(next)).text).toBe('Then this.');
    });
  });

  describe('when a guardrail function answers the wrong shape', () => {
    it('should fail the run naming the guardrail', async () => {
      const broken = defineGuardrail({
        name: 'broken',
        runInParallel: false,
        execute: () => ({ ok: true }) as never,
      });
      await expect(createTestAgent(env, { inputGuardrails: [broken] }).run('Hi')).rejects.toThrow(
        /guardrail broken: execute must answer \{ tripwire: boolean/,
      );
    });
  });
});
