import { z } from 'zod';
import { defineTool } from '../../tools/define-tool.js';
import type { Tool } from '../../tools/tool.js';
import { evaluateArithmetic } from './evaluate-arithmetic.js';
import { knownCities, lookupWeather } from './weather-table.js';

/** Current weather from a fixed local table, so the demo works offline and answers the same every time. */
export const weatherTool = defineTool({
  name: 'get_weather',
  description: `Get the current weather (condition, temperature, humidity, wind) in a city. Known cities: ${knownCities.join(', ')}.`,
  parameters: z.object({ city: z.string().describe('City name, e.g. Paris') }),
  execute: ({ city }) => {
    const report = lookupWeather(city);
    if (!report) throw new Error(`no weather data for "${city}"; known cities: ${knownCities.join(', ')}`);
    return report;
  },
});

/** Arithmetic with a safe parser (no eval): `+ - * / % ^`, parentheses, sqrt, abs, round, min, max, pi. */
export const calculatorTool = defineTool({
  name: 'calculate',
  description:
    'Calculate the value of an arithmetic expression, e.g. what is 17*23 or (2+3)^2/4. ' +
    'Supports + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, min, max, pi and e.',
  parameters: z.object({ expression: z.string().describe('The arithmetic expression, e.g. 17*23') }),
  execute: ({ expression }) => ({ expression, result: evaluateArithmetic(expression) }),
});

/** The current date and time, in UTC or in an IANA time zone. */
export const currentTimeTool = defineTool({
  name: 'get_current_time',
  description: 'Get the current date and time, optionally in an IANA time zone such as Europe/Paris.',
  parameters: z.object({
    timeZone: z.string().optional().describe('IANA time zone, e.g. Europe/Paris; UTC when omitted'),
  }),
  execute: ({ timeZone }) => {
    const zone = timeZone || 'UTC';
    const now = new Date();
    let local: string;
    try {
      local = now.toLocaleString('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' });
    } catch {
      throw new Error(`unknown time zone "${zone}"`);
    }
    return { iso: now.toISOString(), timeZone: zone, local };
  },
});

/** The demo tools of `svc-agents chat`. */
export function demoTools(): Tool[] {
  return [weatherTool, calculatorTool, currentTimeTool];
}
