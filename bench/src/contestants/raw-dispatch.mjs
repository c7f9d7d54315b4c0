// The real floor: the `raw` hand loop written directly on undici's `Pool.dispatch()` with a minimal
// handler. No Readable body, no async iterator: each network read is split into SSE lines and folded
// (JSON.parse per event) inside `onResponseData`, and the turn's promise settles in `onResponseEnd`.
// It does the same work as `raw` (zod-validated tool arguments, accumulated reasoning and tool-call
// fragments, the full conversation sent back each turn) and nothing more.
import { Pool } from 'undici';
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

/**
 * A dispatch handler that hands every `data:` payload (until [DONE]) to `onEvent` as it arrives, or,
 * with `onEvent` undefined, buffers the body; `done` settles with the buffered text at the end.
 */
class MinimalHandler {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.status = 0;
    this.chunks = [];
    this.buffer = '';
    this.decoder = onEvent ? new TextDecoder() : undefined;
    this.finished = false;
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
  onRequestStart() {}
  onResponseStart(_controller, statusCode) {
    this.status = statusCode;
  }
  onResponseData(_controller, bytes) {
    if (!this.onEvent || this.status !== 200) return void this.chunks.push(bytes);
    if (this.finished) return;
    const buffer = this.buffer + this.decoder.decode(bytes, { stream: true });
    let start = 0;
    let nl = buffer.indexOf('\n', start);
    while (nl !== -1) {
      const line = buffer.charCodeAt(nl - 1) === 13 ? buffer.slice(start, nl - 1) : buffer.slice(start, nl);
      start = nl + 1;
      if (line.startsWith('data:')) {
        const data = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        if (data === '[DONE]') {
          this.finished = true;
          break;
        }
        this.onEvent(JSON.parse(data));
      }
      nl = buffer.indexOf('\n', start);
    }
    this.buffer = buffer.slice(start);
  }
  onResponseEnd() {
    const text = this.chunks.length ? Buffer.concat(this.chunks).toString('utf8') : '';
    if (this.status !== 200) this.reject(new Error(`HTTP ${this.status}: ${text}`));
    else this.resolve(text);
  }
  onResponseError(_controller, error) {
    this.reject(error);
  }
}

export async function setup({ baseURL, onToolCall }) {
  const url = new URL(baseURL);
  const pool = new Pool(url.origin, { keepAliveTimeout: 30_000 });
  const path = `${url.pathname.replace(/\/$/, '')}/v1/chat/completions`;
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

  function post(body, onEvent) {
    const handler = new MinimalHandler(onEvent);
    pool.dispatch({ path, method: 'POST', headers, body: JSON.stringify(body) }, handler);
    return handler.done;
  }

  async function streamedTurn(messages) {
    let content = '';
    let reasoning = '';
    const calls = [];
    await post({ model: MODEL, messages, tools, stream: true }, (chunk) => {
      const delta = chunk.choices[0]?.delta;
      if (!delta) return;
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
    });
    const message = { role: 'assistant', content, reasoning };
    if (calls.length) message.tool_calls = calls;
    return message;
  }

  async function completeTurn(messages) {
    const { choices } = JSON.parse(await post({ model: MODEL, messages, tools }));
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
    let n = 0;
    await post({ model, messages: [{ role: 'user', content: 'go' }], stream: true }, (chunk) => {
      if (chunk) n++;
    });
    return n;
  }

  return { run, decode, close: () => pool.close() };
}
