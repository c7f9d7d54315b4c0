import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { budget, defineEval, includes, llmJudge, toolTrajectory } from '../../../src/testing/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';

// A 20-item eval with three variants, run on the emulator's default model: deterministic, so its scores
// are the same on every run. `no-tools` is the deliberately worse variant.

const CITIES = [
  'Paris',
  'London',
  'Berlin',
  'Madrid',
  'Rome',
  'Lisbon',
  'Vienna',
  'Prague',
  'Oslo',
  'Dublin',
  'Athens',
  'Warsaw',
  'Zurich',
  'Tokyo',
  'Seoul',
  'Sydney',
  'Toronto',
  'Chicago',
  'Boston',
  'Cairo',
];

/** One item: the question, and the city the answer must name. */
export interface WeatherItem {
  input: string;
  city: string;
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string().describe('City name') }),
  execute: ({ city }) => ({ city, condition: 'clear', temperature_c: 10 + city.length }),
});

/** The eval, with `variants` chosen by the caller (the baseline and the worse run differ only there). */
export function weatherEval(variants: Array<{ name: string; tools: boolean; model?: string }>) {
  return defineEval<WeatherItem>({
    name: 'weather',
    data: CITIES.map((city) => ({ input: `What's the weather in ${city}?`, city })),
    variants,
    task: (item, { client, variant }) =>
      new Agent({
        client,
        model: (variant.model as string | undefined) ?? 'svc-3.5-flash',
        tools: variant.tools ? [weather] : [],
      }).run(item.input),
    scorers: [
      includes((item) => `temperature c ${10 + item.city.length}`),
      toolTrajectory((item) => [{ name: 'get_weather', arguments: { city: item.city } }]),
      budget({ turns: 3 }),
      llmJudge({ rubric: 'The answer gives the temperature of the city asked about.' }),
    ],
    thresholds: { includes: 0.9, 'tool-trajectory': 0.9 },
  });
}
