// The `openai` SDK (v6, the last major that runs on Node 20) driven by hand, as in OpenAI's
// function-calling guide: chat.completions.create, accumulate streamed tool calls by `index`,
// JSON.parse + zod-validate the arguments, send `tool` messages back.
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

const schema = z.object({ city: z.string().describe('City name') });
const tools = [
  {
    type: 'function',
    function: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: z.toJSONSchema(schema) },
  },
];

export async function setup({ baseURL, onToolCall }) {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${baseURL}/v1`, maxRetries: 0 });

  async function streamedTurn(messages) {
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools, stream: true });
    let content = '';
    const calls = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) content += delta.content;
      for (const d of delta.tool_calls ?? []) {
        if (!calls[d.index])
          calls[d.index] = { id: '', type: 'function', function: { name: '', arguments: '' } };
        const call = calls[d.index];
        if (d.id) call.id = d.id;
        if (d.function?.name) call.function.name += d.function.name;
        if (d.function?.arguments) call.function.arguments += d.function.arguments;
      }
    }
    return calls.length ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
  }

  async function completeTurn(messages) {
    const completion = await client.chat.completions.create({ model: MODEL, messages, tools });
    return completion.choices[0].message;
  }

  async function run(stream) {
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: USER_PROMPT },
    ];
    for (let turn = 0; turn < 10; turn++) {
      const message = stream ? await streamedTurn(messages) : await completeTurn(messages);
      messages.push(message);
      if (!message.tool_calls?.length) return message.content;
      for (const call of message.tool_calls) {
        const args = schema.parse(JSON.parse(call.function.arguments || '{}'));
        onToolCall();
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(weatherOf(args.city)) });
      }
    }
    throw new Error('too many turns');
  }

  async function decode(model) {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    });
    let n = 0;
    for await (const chunk of stream) if (chunk) n++;
    return n;
  }

  return { run, decode, close: async () => {} };
}
