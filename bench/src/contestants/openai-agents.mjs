// The OpenAI Agents SDK (0.14, the last line on openai v6 / Node 20) with its chat-completions model
// pointed at the service through an OpenAI client, as its docs recommend for other providers (including
// `setTracingDisabled(true)` when there is no OpenAI key to export traces with).
import { Agent, OpenAIChatCompletionsModel, run as runAgent, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  API_KEY,
  MODEL,
  SYSTEM_PROMPT,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  USER_PROMPT,
  weatherOf,
} from '../workload.mjs';

export async function setup({ baseURL, onToolCall }) {
  setTracingDisabled(true);
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const getWeather = tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string().describe('City name') }),
    execute: async ({ city }) => {
      onToolCall();
      return weatherOf(city);
    },
  });
  const agent = new Agent({
    name: 'Weather',
    instructions: SYSTEM_PROMPT,
    model: new OpenAIChatCompletionsModel(client, MODEL),
    tools: [getWeather],
  });

  async function run(stream) {
    if (!stream) return (await runAgent(agent, USER_PROMPT, { maxTurns: 10 })).finalOutput;
    const result = await runAgent(agent, USER_PROMPT, { maxTurns: 10, stream: true });
    for await (const event of result) if (!event) break;
    await result.completed;
    if (result.error) throw result.error;
    return result.finalOutput;
  }

  return { run, close: async () => {} };
}
