import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { OutputValidationError } from '../../../src/agent/errors.js';
import type { RunState } from '../../../src/agent/run-state.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const Weather = z.object({ city: z.string(), celsius: z.number() });

function createAgent(model = 'svc-3.5-flash') {
  return new Agent({ client: env.client, model, instructions: 'You report weather.', output: Weather });
}

describe('structured output', () => {
  describe('when the model supports json_schema', () => {
    it('should send a strict json_schema and return the parsed output', async () => {
      env.emu.script([{ message: { content: '{"city":"Paris","celsius":21}' } }]);
      const result = await createAgent().run('Paris?');
      expect(result.status).toBe('completed');
      expect(result.output).toEqual({ city: 'Paris', celsius: 21 });
      const body = chatRequests(env.emu)[0]!;
      expect(body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: {
          name: 'output',
          strict: true,
          schema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } } },
        },
      });
      expect(JSON.stringify(body.response_format)).not.toContain('$schema');
      expect(body.messages[0]).toEqual({ role: 'system', content: 'You report weather.' });
    });
  });

  describe('when the model does not support json_schema', () => {
    it('should send json_object plus an instruction carrying the schema', async () => {
      env.emu.script([{ message: { content: '```json\n{"city":"Oslo","celsius":-3}\n```' } }]);
      const result = await createAgent('svc-3.7-flash').run('Oslo?');
      expect(result.output).toEqual({ city: 'Oslo', celsius: -3 });
      const body = chatRequests(env.emu)[0]!;
      expect(body.response_format).toEqual({ type: 'json_object' });
      const system = body.messages[0] as { role: string; content: string };
      expect(system.role).toBe('system');
      expect(system.content).toContain('You report weather.');
      expect(system.content).toContain('"celsius"');
    });
  });

  describe('when the first answer does not validate', () => {
    it('should spend one corrective turn telling the model what was wrong', async () => {
      env.emu.script([
        { message: { content: '{"city":"Rome","celsius":"warm"}' } },
        { message: { content: '{"city":"Rome","celsius":25}' } },
      ]);
      const result = await createAgent().run('Rome?');
      expect(result.output).toEqual({ city: 'Rome', celsius: 25 });
      const requests = chatRequests(env.emu);
      expect(requests).toHaveLength(2);
      const correction = requests[1]!.messages.at(-1) as { role: string; content: string };
      expect(correction.role).toBe('user');
      expect(correction.content).toContain('celsius');
      expect(result.steps).toHaveLength(2);
    });
  });

  describe('when the corrected answer still fails', () => {
    it('should throw OutputValidationError with the raw text and the state', async () => {
      env.emu.script([{ message: { content: 'not json at all' } }, { message: { content: '{"city":1}' } }]);
      const error = (await createAgent()
        .run('x')
        .catch((e: unknown) => e)) as OutputValidationError & { state: RunState };
      expect(error).toBeInstanceOf(OutputValidationError);
      expect(error.text).toBe('{"city":1}');
      expect(error.issues.join('\n')).toMatch(/city|celsius/);
      expect(error.state.messages).toHaveLength(4);
      expect(chatRequests(env.emu)).toHaveLength(2);
      expect(Object.keys(error)).not.toContain('state');
    });
  });

  describe('when the emulator default model answers in JSON mode', () => {
    it('should produce output that validates against the schema', async () => {
      const result = await createAgent().run('What is the weather in Paris?');
      expect(Weather.safeParse(result.output).success).toBe(true);
    });
  });
});
