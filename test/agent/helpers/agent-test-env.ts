import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SvcClient } from '../../../src/api/svc-client.js';
import type { ChatCompletionChunk, ToolCallDelta, Usage } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';

/** An emulator and a client pointed at it, started once per test file and reset before each test. */
export interface AgentTestEnv {
  emu: Emulator;
  client: SvcClient;
}

/** Starts the emulator for the test file; the returned object is filled in `beforeAll`. */
export function useAgentTestEnv(): AgentTestEnv {
  const env = {} as AgentTestEnv;
  beforeAll(async () => {
    env.emu = await startEmulator({ port: 0 });
    env.client = new SvcClient({ apiKey: env.emu.apiKey, baseURL: env.emu.baseURL, maxRetries: 0 });
  });
  beforeEach(() => env.emu.reset());
  afterAll(async () => {
    await env.client?.close();
    await env.emu?.close();
  });
  return env;
}

/** Chat-completion request bodies the emulator received, oldest first. */
export function chatRequests(emu: Emulator): Array<Record<string, unknown> & { messages: unknown[] }> {
  return emu
    .requests()
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as Record<string, unknown> & { messages: unknown[] });
}

let created = 0;

/** One streamed chunk in the service's observed shape. */
export function chunk(
  delta: ChatCompletionChunk['choices'][number]['delta'],
  options: { finish_reason?: string | null; usage?: Usage; omitFinishReason?: boolean } = {},
): ChatCompletionChunk {
  const choice: ChatCompletionChunk['choices'][number] = { index: 0, delta };
  if (!options.omitFinishReason) choice.finish_reason = options.finish_reason ?? '';
  const result: ChatCompletionChunk = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: created++ === 0 ? 0 : 1_700_000_000,
    model: 'svc-3.5-flash',
    choices: [choice],
  };
  if (options.usage) result.usage = options.usage;
  return result;
}

/** A tool-call delta. */
export function callDelta(fields: ToolCallDelta): ChatCompletionChunk['choices'][number]['delta'] {
  return { role: '', tool_calls: [fields] };
}

/** Wire usage. */
export function usage(prompt: number, completion: number, cached?: number): Usage {
  const value: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (cached !== undefined) value.cached_tokens = cached;
  return value;
}
