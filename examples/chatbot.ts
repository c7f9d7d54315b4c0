/**
 * A chatbot with a tool that remembers the conversation between turns.
 * Run: npx tsx examples/chatbot.ts
 */
import { z } from 'zod';
import { Agent, type ChatMessage, defineTool } from '../src/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the current weather in a city.',
  parameters: z.object({ city: z.string().describe('City name, e.g. Paris') }),
  execute: async ({ city }) => ({ city, temperatureC: city === 'Paris' ? 14 : 21, condition: 'cloudy' }),
});

const agent = new Agent({
  client,
  model: 'svc-3.5-flash-2603',
  instructions: 'You are a concise, friendly assistant.',
  tools: [getWeather],
});

// The conversation so far; each run returns it with the new turns appended.
let messages: ChatMessage[] = [];
for (const question of ['What is the weather in Paris?', 'Thanks! Should I take an umbrella?']) {
  const result = await agent.run([...messages, { role: 'user', content: question }]);
  messages = result.messages;
  console.log(`you: ${question}`);
  console.log(`bot: ${result.text}\n`);
}
console.log(`(${messages.length} messages in the conversation)`);
await close();
