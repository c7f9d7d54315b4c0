// The floor: what a careful developer writes by hand with undici and no SDK. It does the same work as
// every other contestant (zod-validated tool arguments, accumulated reasoning and tool-call fragments,
// the full conversation sent back each turn) and nothing more.
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { z } from 'zod';
import {
  API_KEY,
  CITIES,
  LATENCY_MODEL,
  LATENCY_TOOL_MS,
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

/**
 * Splits an SSE byte stream into `data` payloads and JSON.parses each one until [DONE]. It reads the body
 * to its end rather than returning at [DONE]: destroying an unfinished undici body closes the socket, and
 * every next request would pay for a new connection.
 */
export async function* sseJson(body) {
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  for await (const bytes of body) {
    if (done) continue;
    buffer += decoder.decode(bytes, { stream: true });
    let start = 0;
    let nl = buffer.indexOf('\n', start);
    while (nl !== -1) {
      const line = buffer.charCodeAt(nl - 1) === 13 ? buffer.slice(start, nl - 1) : buffer.slice(start, nl);
      start = nl + 1;
      if (line.startsWith('data:')) {
        const data = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        if (data === '[DONE]') {
          done = true;
          break;
        }
        yield JSON.parse(data);
      }
      nl = buffer.indexOf('\n', start);
    }
    buffer = buffer.slice(start);
  }
}

export async function setup({ baseURL, onToolCall }) {
  const url = `${baseURL}/v1/chat/completions`;
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

  async function post(body) {
    const res = await request(url, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${await res.body.text()}`);
    return res;
  }

  async function streamedTurn(messages, model = MODEL) {
    const res = await post({ model, messages, tools, stream: true });
    let content = '';
    let reasoning = '';
    const calls = [];
    for await (const chunk of sseJson(res.body)) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) content += delta.content;
      if (delta.reasoning) reasoning += delta.reasoning;
      if (delta.tool_calls) {
        for (const d of delta.tool_calls) {
          if (!calls[d.index])
            calls[d.index] = { id: '', type: 'function', function: { name: '', arguments: '' } };
          const call = calls[d.index];
          if (d.id) call.id = d.id;
          if (d.function?.name) call.function.name += d.function.name;
          if (d.function?.arguments) call.function.arguments += d.function.arguments;
        }
      }
    }
    const message = { role: 'assistant', content, reasoning };
    if (calls.length) message.tool_calls = calls;
    return message;
  }

  async function completeTurn(messages) {
    const res = await post({ model: MODEL, messages, tools });
    const { choices } = await res.body.json();
    const { role, content, reasoning, tool_calls } = choices[0].message;
    const message = { role, content, reasoning };
    if (tool_calls?.length) message.tool_calls = tool_calls;
    return message;
  }

  async function run(stream) {
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: USER_PROMPT },
    ];
    for (let turn = 0; turn < 10; turn++) {
      const message = stream ? await streamedTurn(messages) : await completeTurn(messages);
      messages.push(message);
      if (!message.tool_calls) return message.content;
      for (const call of message.tool_calls) {
        const args = schema.parse(JSON.parse(call.function.arguments || '{}'));
        onToolCall();
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(weatherOf(args.city)) });
      }
    }
    throw new Error('too many turns');
  }

  async function decode(model) {
    const res = await post({ model, messages: [{ role: 'user', content: 'go' }], stream: true });
    let n = 0;
    for await (const chunk of sseJson(res.body)) if (chunk) n++;
    return n;
  }

  /** The latency workload: the hand loop runs the turn's tools in parallel once the stream has ended. */
  async function latency() {
    const starts = [];
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: USER_PROMPT },
    ];
    for (let turn = 0; turn < 10; turn++) {
      const message = await streamedTurn(messages, LATENCY_MODEL);
      messages.push(message);
      if (!message.tool_calls) return { text: message.content, starts };
      const results = await Promise.all(
        message.tool_calls.map(async (call) => {
          const { city } = schema.parse(JSON.parse(call.function.arguments || '{}'));
          starts[CITIES.indexOf(city)] = performance.now();
          await sleep(LATENCY_TOOL_MS);
          return { role: 'tool', tool_call_id: call.id, content: JSON.stringify(weatherOf(city)) };
        }),
      );
      messages.push(...results);
    }
    throw new Error('too many turns');
  }

  return { run, decode, latency, latencyModes: ['after-stream'], close: async () => {} };
}
