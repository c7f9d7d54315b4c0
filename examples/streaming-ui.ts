/**
 * Streams an agent's events to a terminal UI: reasoning dimmed, the answer as it is written, tool activity.
 * Run: npx tsx examples/streaming-ui.ts
 */
import { z } from 'zod';
import { Agent, defineTool } from '../src/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();
const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[22m` : text);

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the current weather in a city.',
  parameters: z.object({ city: z.string().describe('City name, e.g. Paris') }),
  execute: async ({ city }) => ({ city, temperatureC: 14, condition: 'light rain' }),
});

const agent = new Agent({ client, model: 'svc-3.5-flash-2603', tools: [getWeather] });
const stream = agent.stream('What is the weather in Paris?');

let writing: 'reasoning' | 'text' | undefined; // what the current line holds
const write = (kind: 'reasoning' | 'text', text: string) => {
  if (writing && writing !== kind) process.stdout.write('\n');
  writing = kind;
  process.stdout.write(kind === 'reasoning' ? dim(text) : text);
};
const line = (text: string) => {
  if (writing) process.stdout.write('\n');
  writing = undefined;
  console.log(text);
};

for await (const event of stream) {
  switch (event.type) {
    case 'start-step':
      line(dim(`— step ${event.step + 1} —`));
      break;
    case 'reasoning-delta':
      write('reasoning', event.text);
      break;
    case 'text-delta':
      write('text', event.text);
      break;
    case 'tool-call':
      line(`→ ${event.toolName}(${JSON.stringify(event.input)})`);
      break;
    case 'tool-result':
      line(`← ${JSON.stringify(event.output)}`);
      break;
    case 'tool-error':
      line(`✗ ${event.toolName}: ${event.error.message}`);
      break;
    case 'finish':
      line(dim(`[${event.finishReason}, ${event.usage.totalTokens} tokens]`));
      break;
  }
}

const result = await stream.result;
console.log(`final answer: ${result.text}`);
await close();
