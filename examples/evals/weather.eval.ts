/**
 * An eval: a weather agent on a 10-question dataset, two models side by side, a CI gate on its scores.
 * Run: npx tsx src/cli/main.ts eval examples/evals/weather.eval.ts
 * Gate: ... eval examples/evals/weather.eval.ts --baseline eval-results/result.json (exit 1 when a score fell)
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Agent, defineTool } from '../../src/index.js';
import { budget, defineEval, includes, llmJudge, toolTrajectory } from '../../src/testing/index.js';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string().describe('City name') }),
  // A fixed table, so the eval is deterministic on the emulator and on the service alike.
  execute: ({ city }) => ({ city, condition: 'clear', temperature_c: 20 }),
});

/** One line of weather.jsonl. */
interface Item {
  input: string;
  city: string;
}

export default defineEval<Item>({
  name: 'weather-agent',
  data: fileURLToPath(new URL('weather.jsonl', import.meta.url)),
  variants: [
    { name: 'flash', model: 'svc-3.5-flash' },
    { name: '3.7-flash', model: 'svc-3.7-flash' },
  ],
  task: (item, { client, variant }) =>
    new Agent({ client, model: variant.model ?? 'svc-3.5-flash', tools: [getWeather] }).run(item.input),
  scorers: [
    includes((item) => item.city),
    toolTrajectory((item) => [{ name: 'get_weather', arguments: { city: item.city } }]),
    budget({ turns: 3 }),
    llmJudge({ rubric: 'The answer gives the weather of the city asked about.' }),
  ],
  thresholds: { includes: 0.9, 'tool-trajectory': 0.9, pass: 0.8 },
});
