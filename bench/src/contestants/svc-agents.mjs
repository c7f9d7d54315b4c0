// svc-agents, as its README shows: a SvcClient, one defineTool with a zod schema, an Agent; `agent.run`
// for the non-streamed run, `agent.stream` (iterating every event, then `stream.result`) for the streamed
// one. It imports the built package (../dist, `npm run build` at the repo root), exactly what users load.

import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { svcAgentsEntry } from '../svc-agents-entry.mjs';
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

export async function setup({ baseURL, onToolCall }) {
  const { Agent, SvcClient, defineTool } = await import(svcAgentsEntry());
  // SVC_AGENTS_VALIDATE=false is for what-if measurements only (the default, validate: true, is benchmarked).
  const validate = process.env.SVC_AGENTS_VALIDATE !== 'false';
  const client = new SvcClient({ apiKey: API_KEY, baseURL, maxRetries: 0, validate });
  // SVC_AGENTS_IDEMPOTENT=true (what-if): the tool may start while the model still streams.
  const idempotent = process.env.SVC_AGENTS_IDEMPOTENT === 'true';
  const getWeather = defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string().describe('City name') }),
    idempotent,
    execute: async ({ city }) => {
      onToolCall();
      return weatherOf(city);
    },
  });
  const agent = new Agent({
    client,
    model: MODEL,
    instructions: SYSTEM_PROMPT,
    tools: [getWeather],
    maxTurns: 10,
  });

  async function run(stream) {
    if (!stream) return (await agent.run(USER_PROMPT)).text;
    const s = agent.stream(USER_PROMPT);
    for await (const event of s) if (!event) break;
    return (await s.result).text;
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

  /**
   * The latency workload, streamed: `eager` declares the tool idempotent (it may start while the model
   * still streams), `after-stream` does not (today's behaviour). Returns each call's tool start time.
   */
  async function latency(mode) {
    const starts = [];
    const lookup = defineTool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: z.object({ city: z.string().describe('City name') }),
      idempotent: mode === 'eager',
      execute: async ({ city }) => {
        starts[CITIES.indexOf(city)] = performance.now();
        await sleep(LATENCY_TOOL_MS);
        return weatherOf(city);
      },
    });
    const agent = new Agent({
      client,
      model: LATENCY_MODEL,
      instructions: SYSTEM_PROMPT,
      tools: [lookup],
      maxTurns: 10,
    });
    const s = agent.stream(USER_PROMPT);
    for await (const event of s) if (!event) break;
    return { text: (await s.result).text, starts };
  }

  return { run, decode, latency, latencyModes: ['eager', 'after-stream'], close: () => client.close() };
}
