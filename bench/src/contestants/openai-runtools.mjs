// The `openai` SDK's automated tool loop, as its README recommends: chat.completions.runTools with a
// zodFunction tool (arguments parsed and validated by the SDK), `finalContent()` for the answer.
import OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
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
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const tools = [
    zodFunction({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: z.object({ city: z.string().describe('City name') }),
      function: async ({ city }) => {
        onToolCall();
        return weatherOf(city);
      },
    }),
  ];

  async function run(stream) {
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: USER_PROMPT },
    ];
    const runner = client.chat.completions.runTools(
      { model: MODEL, messages, tools, stream },
      { maxChatCompletions: 10 },
    );
    if (stream) for await (const chunk of runner) if (!chunk) break;
    return runner.finalContent();
  }

  return { run, close: async () => {} };
}
