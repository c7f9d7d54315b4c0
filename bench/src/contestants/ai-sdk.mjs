// The Vercel AI SDK (v6) with its OpenAI-compatible provider, as its docs recommend: a `tool` with a zod
// `inputSchema`, generateText / streamText with `stopWhen: stepCountIs(10)`; the streamed run consumes
// `fullStream` (what a UI forwards) and then reads the final text.

import { setTimeout as sleep } from 'node:timers/promises';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
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

export async function setup({ baseURL, onToolCall }) {
  const provider = createOpenAICompatible({ name: 'svc', apiKey: API_KEY, baseURL: `${baseURL}/v1` });
  const model = provider(MODEL);
  const tools = {
    [TOOL_NAME]: tool({
      description: TOOL_DESCRIPTION,
      inputSchema: z.object({ city: z.string().describe('City name') }),
      execute: async ({ city }) => {
        onToolCall();
        return weatherOf(city);
      },
    }),
  };
  const common = {
    model,
    system: SYSTEM_PROMPT,
    prompt: USER_PROMPT,
    tools,
    stopWhen: stepCountIs(10),
    maxRetries: 0,
  };

  async function run(stream) {
    if (!stream) return (await generateText(common)).text;
    let error;
    const result = streamText({
      ...common,
      onError: ({ error: e }) => {
        error = e;
      },
    });
    for await (const part of result.fullStream) if (part.type === 'error') error = part.error;
    if (error) throw error;
    return result.text;
  }

  async function decode(decodeModel) {
    const result = streamText({ model: provider(decodeModel), prompt: 'go', maxRetries: 0 });
    let n = 0;
    for await (const part of result.fullStream) if (part.type === 'text-delta') n++;
    // The first chunk carries an empty content delta, which the SDK drops; count it as decoded.
    return n + 1;
  }

  /** The latency workload with streamText: the SDK decides when each tool starts. */
  async function latency() {
    const starts = [];
    const latencyTools = {
      [TOOL_NAME]: tool({
        description: TOOL_DESCRIPTION,
        inputSchema: z.object({ city: z.string().describe('City name') }),
        execute: async ({ city }) => {
          starts[CITIES.indexOf(city)] = performance.now();
          await sleep(LATENCY_TOOL_MS);
          return weatherOf(city);
        },
      }),
    };
    let error;
    const result = streamText({
      ...common,
      model: provider(LATENCY_MODEL),
      tools: latencyTools,
      onError: ({ error: e }) => {
        error = e;
      },
    });
    for await (const part of result.fullStream) if (part.type === 'error') error = part.error;
    if (error) throw error;
    return { text: await result.text, starts };
  }

  return { run, decode, latency, latencyModes: ['after-stream'], close: async () => {} };
}
