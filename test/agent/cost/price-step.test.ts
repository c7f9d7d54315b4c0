import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { audioSeconds } from '../../../src/agent/cost/audio-seconds.js';
import { AgentOptionsError } from '../../../src/agent/errors.js';
import { RunState } from '../../../src/agent/run-state.js';
import { generateImagePng } from '../../../src/emulator/media/png.js';
import { pcmToWav, synthesizePcm } from '../../../src/emulator/media/wav.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
const price = { input: 2, cachedInput: 0.5, output: 8, image: 0.01, audioSecond: 0.001 };

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `${city}: 14 C`,
});

describe('usage.cost', () => {
  describe('when the agent has prices', () => {
    it('should price each step (cached tokens at the cached price) and sum them for the run', async () => {
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [weather],
        prices: { 'svc-3.5-flash': price },
      });
      const result = await agent.run('What is the weather in Paris?');
      expect(result.steps).toHaveLength(2);
      for (const step of result.steps) {
        const { promptTokens, cachedTokens, completionTokens } = step.usage;
        const expected =
          ((promptTokens - cachedTokens) * 2 + cachedTokens * 0.5 + completionTokens * 8) / 1e6;
        expect(step.usage.cost).toBeCloseTo(expected, 12);
      }
      expect(result.steps[1]?.usage.cachedTokens).toBeGreaterThan(0);
      expect(result.usage.cost).toBeCloseTo(
        (result.steps[0]?.usage.cost ?? 0) + (result.steps[1]?.usage.cost ?? 0),
        12,
      );
    });

    it('should keep the cost through a saved state', async () => {
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        prices: { 'svc-3.5-flash': price },
      });
      const result = await agent.run('Hello');
      const restored = RunState.fromJSON(JSON.stringify(result.state), agent);
      expect(restored.usage.cost).toBe(result.usage.cost);
    });

    it('should charge images and audio seconds', async () => {
      const wav = pcmToWav(synthesizePcm('one two three four')).toString('base64');
      const agent = new Agent({
        client: env.client,
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { voice: 'qingchunshaonv', format: 'wav' } },
        prices: { 'svc-audio-2': { input: 0, output: 0, image: 0.5, audioSecond: 1 } },
      });
      const result = await agent.run([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this' },
            { type: 'input_audio', input_audio: { data: `data:audio/wav;base64,${wav}` } },
          ],
        },
      ]);
      // The emulator speaks its transcript as 24 kHz pcm in a wav.
      const spoken = pcmToWav(synthesizePcm(result.text)).toString('base64');
      const seconds = audioSeconds(wav) + audioSeconds(spoken);
      expect(audioSeconds(wav)).toBeGreaterThan(0);
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.usage.cost).toBeCloseTo(seconds, 9);
    });
  });

  describe('when a request carries images', () => {
    it('should charge each image sent', async () => {
      const png = generateImagePng('cat', 1, 32, 32).toString('base64');
      const image = { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${png}` } };
      const agent = new Agent({
        client: env.client,
        model: 'svc-1o-turbo-vision',
        prices: { 'svc-1o-turbo-vision': { input: 0, output: 0, image: 0.25 } },
      });
      const result = await agent.run([
        { role: 'user', content: [{ type: 'text', text: 'Compare' }, image, image] },
      ]);
      expect(result.usage.cost).toBe(0.5);
    });
  });

  describe('when there are no prices', () => {
    it('should leave cost out', async () => {
      const result = await new Agent({ client: env.client, model: 'svc-3.5-flash' }).run('Hello');
      expect(result.usage).not.toHaveProperty('cost');
    });
  });

  describe('when the price table is wrong', () => {
    it('should name the field and rule', () => {
      const create = (prices: unknown) =>
        new Agent({ client: env.client, model: 'svc-3.5-flash', prices: prices as never });
      expect(() => create({ 'svc-1-8k': price })).toThrow('prices.svc-3.5-flash: required');
      expect(() => create({ 'svc-3.5-flash': { input: -1, output: 1 } })).toThrow(AgentOptionsError);
      expect(() => create({ 'svc-3.5-flash': { input: 1 } })).toThrow(
        'prices.svc-3.5-flash.output: must be a number >= 0',
      );
    });
  });
});
