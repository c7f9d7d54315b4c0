// A fast fake of the service's chat-completions endpoint, run as its own process so its CPU is never
// counted against a contestant. Usage: `node fake-server.mjs` prints `{"port":N}` on its first line.
//
// The turn is decided from the request alone (the number of `tool` messages), so any number of
// concurrent conversations work without server state. Every answer is prebuilt once at start-up.
//
// Streams speak the service's dialect (api-spec.md, service-notes.md): first chunk `created: 0`,
// role "assistant", zero usage; later chunks role "" and finish_reason ""; reasoning first, one chunk
// per token; tool arguments in fragments with `index`; cumulative usage on every chunk; `data: [DONE]`.
// Events are written one per `res.write`, yielding to the event loop between them (setImmediate), so a
// client receives them in many small reads as from a real model rather than in one big buffer.
import { createServer } from 'node:http';
import {
  CITIES,
  DECODE_CHUNKS,
  FINAL_ANSWER_TOKENS,
  FINAL_TEXT,
  LATENCY_ARGS_DONE_MS,
  LATENCY_MODEL,
  LATENCY_STREAM_END_MS,
  LATENCY_TEXT,
  REASONING,
  TOOL_NAME,
  TOOL_TURNS,
  toolArguments,
  toolCallId,
  weatherOf,
} from './workload.mjs';

const CREATED = 1_763_776_800;
const PROMPT_TOKENS = 60;

function usage(turn, completion) {
  const prompt = PROMPT_TOKENS + turn * 40;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function chunk(id, delta, finishReason, usageValue, created = CREATED) {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'svc-3.5-flash',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    usage: usageValue,
  })}\n\n`;
}

/** The SSE events (strings) of turn `turn`: a tool turn while turn < TOOL_TURNS, else the final answer. */
function streamedTurn(turn) {
  const id = `chatcmpl-bench-${turn}`;
  const events = [chunk(id, { role: 'assistant', content: '' }, '', usage(turn, 0), 0)];
  let n = 0;
  for (const token of REASONING) events.push(chunk(id, { role: '', reasoning: token }, '', usage(turn, ++n)));
  if (turn < TOOL_TURNS) {
    const { fragments } = toolArguments(turn);
    events.push(
      chunk(
        id,
        {
          role: '',
          tool_calls: [
            {
              index: 0,
              id: toolCallId(turn),
              type: 'function',
              function: { name: TOOL_NAME, arguments: '' },
            },
          ],
        },
        '',
        usage(turn, ++n),
      ),
    );
    for (const fragment of fragments) {
      events.push(
        chunk(
          id,
          { role: '', tool_calls: [{ index: 0, function: { arguments: fragment } }] },
          '',
          usage(turn, ++n),
        ),
      );
    }
    events.push(chunk(id, {}, 'tool_calls', usage(turn, n)));
  } else {
    FINAL_ANSWER_TOKENS.forEach((token, i) => {
      const last = i === FINAL_ANSWER_TOKENS.length - 1;
      events.push(chunk(id, { role: '', content: token }, last ? 'stop' : '', usage(turn, ++n)));
    });
  }
  events.push('data: [DONE]\n\n');
  return events;
}

/** The JSON body of turn `turn` when not streamed. */
function completeTurn(turn) {
  const reasoning = REASONING.join('');
  const tool = turn < TOOL_TURNS;
  const message = tool
    ? {
        role: 'assistant',
        content: '',
        reasoning,
        tool_calls: [
          {
            index: 0,
            id: toolCallId(turn),
            type: 'function',
            function: { name: TOOL_NAME, arguments: toolArguments(turn).text },
          },
        ],
      }
    : { role: 'assistant', content: FINAL_TEXT, reasoning };
  const completion =
    REASONING.length + (tool ? 1 + toolArguments(turn).fragments.length : FINAL_ANSWER_TOKENS.length);
  return Buffer.from(
    JSON.stringify({
      id: `chatcmpl-bench-${turn}`,
      object: 'chat.completion',
      created: CREATED,
      model: 'svc-3.5-flash',
      choices: [{ index: 0, message, finish_reason: tool ? 'tool_calls' : 'stop' }],
      usage: usage(turn, completion),
    }),
  );
}

/** One big stream of DECODE_CHUNKS chunks, sent in one go: it measures the client's decoder only. */
function decodeStream() {
  const id = 'chatcmpl-bench-decode';
  const parts = [chunk(id, { role: 'assistant', content: '' }, '', usage(0, 0), 0)];
  for (let i = 1; i < DECODE_CHUNKS; i++) {
    const last = i === DECODE_CHUNKS - 1;
    parts.push(chunk(id, { role: '', content: ` tok${i % 1000}` }, last ? 'stop' : '', usage(0, i)));
  }
  parts.push('data: [DONE]\n\n');
  return Buffer.from(parts.join(''));
}

/**
 * The latency workload's tool turn as `[ms after the request, event]`: each call starts, then its 4
 * argument fragments arrive 60 ms apart, the last at LATENCY_ARGS_DONE_MS; the stream ends at
 * LATENCY_STREAM_END_MS. Its answer turn (once 3 tool messages came back) is sent at once.
 */
function latencyTurn() {
  const id = 'chatcmpl-bench-latency';
  const events = [[0, chunk(id, { role: 'assistant', content: '' }, '', usage(0, 0), 0)]];
  let n = 0;
  LATENCY_ARGS_DONE_MS.forEach((doneAt, index) => {
    const { fragments } = toolArguments(index);
    const first = doneAt - 60 * fragments.length;
    const start = {
      index,
      id: toolCallId(index),
      type: 'function',
      function: { name: TOOL_NAME, arguments: '' },
    };
    events.push([first, chunk(id, { role: '', tool_calls: [start] }, '', usage(0, ++n))]);
    fragments.forEach((fragment, i) => {
      const delta = { role: '', tool_calls: [{ index, function: { arguments: fragment } }] };
      events.push([first + 60 * (i + 1), chunk(id, delta, '', usage(0, ++n))]);
    });
  });
  events.push([LATENCY_STREAM_END_MS, chunk(id, {}, 'tool_calls', usage(0, n))]);
  events.push([LATENCY_STREAM_END_MS, 'data: [DONE]\n\n']);
  return events;
}

/** When the last latency turn's events were written (epoch ms), for `GET /latency-sends`. */
let latencySends = [];

function writeScheduled(res, events) {
  const t0 = performance.now();
  const sends = [];
  latencySends = sends;
  for (const [at, event] of events) {
    const write = () => {
      if (res.destroyed) return;
      res.write(event);
      sends.push({ at, sentAt: performance.timeOrigin + performance.now() });
    };
    setTimeout(write, Math.max(0, at - (performance.now() - t0)));
  }
  setTimeout(() => res.end(), Math.max(0, events.at(-1)[0] - (performance.now() - t0)) + 1);
}

const latencyEvents = latencyTurn();
const latencyAnswer = [
  chunk('chatcmpl-bench-latency-2', { role: 'assistant', content: '' }, '', usage(1, 0), 0),
  chunk('chatcmpl-bench-latency-2', { role: '', content: LATENCY_TEXT }, 'stop', usage(1, 8)),
  'data: [DONE]\n\n',
].join('');

const streamed = Array.from({ length: TOOL_TURNS + 1 }, (_, t) => streamedTurn(t).map((e) => Buffer.from(e)));
const complete = Array.from({ length: TOOL_TURNS + 1 }, (_, t) => completeTurn(t));
const decode = decodeStream();
const expectedToolContent = CITIES.map((city) => JSON.stringify(weatherOf(city)));

function fail(res, status, message) {
  const body = JSON.stringify({ error: { message, type: 'request_params_invalid' } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function writePaced(res, events) {
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    // One event per loop turn, and the end of the body on a turn of its own (as a real server often
    // sends it after [DONE]); honour back-pressure so a slow client is not flooded.
    if (i === events.length) return void res.end();
    const ok = res.write(events[i++]);
    if (ok) setImmediate(next);
    else res.once('drain', next);
  };
  next();
}

const stats = { connections: 0, requests: 0 };

function handle(req, res, raw) {
  // Diagnostics for the driver: how many TCP connections the contestants opened (keep-alive reuse).
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify(stats));
  }
  // The latency workload's driver: when each scheduled event of the last tool turn was really written.
  if (req.method === 'GET' && req.url === '/latency-sends') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify(latencySends));
  }
  stats.requests++;
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions'))
    return fail(res, 404, `no route ${req.url}`);
  if (!req.headers.authorization) return fail(res, 401, 'missing Authorization');
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return fail(res, 400, 'body is not JSON');
  }
  const headers = { 'x-trace-id': 'bench-trace' };
  if (body.stream && typeof body.model === 'string' && body.model.startsWith('decode')) {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    return void res.end(decode);
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (body.model === LATENCY_MODEL) {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const tools = messages.filter((m) => m.role === 'tool').length;
    if (tools === 0) return void writeScheduled(res, latencyEvents);
    if (tools !== LATENCY_ARGS_DONE_MS.length)
      return void res.end('data: {"error":{"message":"bad turn"}}\n\n');
    return void res.end(latencyAnswer);
  }
  let turn = 0;
  let lastTool;
  for (const m of messages) {
    if (m.role === 'tool') {
      turn++;
      lastTool = m;
    }
  }
  if (turn > TOOL_TURNS) return fail(res, 400, `too many tool messages: ${turn}`);
  // The tool really ran: its result must come back verbatim (as JSON text) with the right call id.
  if (lastTool) {
    const content =
      typeof lastTool.content === 'string' ? lastTool.content : JSON.stringify(lastTool.content);
    if (lastTool.tool_call_id !== toolCallId(turn - 1) || !sameJson(content, expectedToolContent[turn - 1])) {
      return fail(res, 400, `unexpected tool message ${JSON.stringify(lastTool)}`);
    }
  }
  if (!Array.isArray(body.tools) || body.tools.length !== 1)
    return fail(res, 400, 'expected exactly one tool');
  if (body.stream) {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writePaced(res, streamed[turn]);
  } else {
    const buf = complete[turn];
    res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': buf.length });
    res.end(buf);
  }
}

// Peers serialise tool output differently (some as JSON text, some wrapped); compare parsed values.
function sameJson(text, expected) {
  if (text === expected) return true;
  try {
    const value = JSON.parse(text);
    return JSON.stringify(typeof value === 'string' ? JSON.parse(value) : value) === expected;
  } catch {
    return false;
  }
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const parts = [];
  req.on('data', (d) => parts.push(d));
  req.on('end', () => handle(req, res, Buffer.concat(parts).toString('utf8')));
});
server.on('connection', () => stats.connections++);
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
