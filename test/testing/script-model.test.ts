import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { APITimeoutError, InternalServerError } from '../../src/core/errors.js';
import { ScriptNotConsumedError, scriptModel } from '../../src/testing/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperature_c: 14 }),
});

describe('scriptModel', () => {
  describe('when a run uses every scripted answer', () => {
    it('should answer with them in order and pass assertComplete', async () => {
      const model = scriptModel(env.emu)
        .toolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' }, id: 'call_1' }], {
          reasoning: 'Need data.',
        })
        .text('It is 14 °C in Oslo.');
      expect(model.remaining).toBe(2);
      const result = await new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [weather] }).run(
        'Weather in Oslo?',
      );
      expect(result.text).toBe('It is 14 °C in Oslo.');
      expect(result.steps[0]?.toolCalls.map((call) => JSON.parse(call.arguments))).toEqual([
        { city: 'Oslo' },
      ]);
      model.assertComplete();
    });
  });

  describe('when the run makes fewer requests than scripted', () => {
    it('should fail assertComplete with how many answers were left', async () => {
      const model = scriptModel(env.emu).text('One.').text('Two.').text('Three.');
      await new Agent({ client: env.client, model: 'svc-3.5-flash' }).run('Count');
      expect(() => model.assertComplete()).toThrow(ScriptNotConsumedError);
      expect(() => model.assertComplete()).toThrow('2 of 3 scripted answers were not used');
    });
  });

  describe('when errors and stalls are scripted', () => {
    it('should fail the request with the status, then time it out on the stall', async () => {
      scriptModel(env.emu).error(500).stall(2_000);
      const client = new SvcClient({
        apiKey: env.emu.apiKey,
        baseURL: env.emu.baseURL,
        maxRetries: 0,
        timeout: 300,
      });
      const agent = new Agent({ client, model: 'svc-3.5-flash' });
      await expect(agent.run('Hi')).rejects.toBeInstanceOf(InternalServerError);
      await expect(agent.run('Hi')).rejects.toBeInstanceOf(APITimeoutError);
      await client.close();
    });
  });
});
