import { z } from 'zod';
import { defineTool } from '../../../tools/define-tool.js';
import type { Tool } from '../../../tools/tool.js';
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
    'A calculator: calculate the value of an arithmetic expression, e.g. 17*23 or (2+3)^2/4. ' +
    'Supports + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, min, max, pi and e.',
  parameters: z.object({ expression: z.string().describe('The arithmetic expression, e.g. 17*23') }),
  execute: ({ expression }) => {
    const math = arithmeticPart(expression);
    return { expression: math, result: evaluateArithmetic(math) };
  },
});

/**
 * Models sometimes pass the whole request ("Calculate 17*23") instead of the expression: keep the longest
 * run of arithmetic characters then. Anything the evaluator cannot read still fails there, safely.
 */
function arithmeticPart(text: string): string {
  if (!/[a-z]{3,}/i.test(text) || /\b(sqrt|abs|round|floor|ceil|min|max|pi)\b/i.test(text)) return text;
  const runs = text.match(/[\d\s.+\-*/%^()×÷]*\d[\d\s.+\-*/%^()×÷]*/g) ?? [];
  const longest = runs.map((run) => run.trim()).sort((a, b) => b.length - a.length)[0];
  return longest || text;
}

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
