import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
import type { Tool, ToolCallOutcome } from '../../src/tools/tool.js';
import { createToolCall } from './create-tool-call.js';

/** The emulator on 127.0.0.1:0 and a client talking to it; `close()` stops both. */
export interface ToolService {
  emulator: Emulator;
  client: SvcClient;
  close(): Promise<void>;
}

/** Starts the emulator with a short parse delay so file readiness is observable but quick. */
export async function startToolService(parseDelayMs = 150): Promise<ToolService> {
  const emulator = await startEmulator({ port: 0, parseDelayMs });
  const client = new SvcClient({ baseURL: emulator.baseURL, apiKey: emulator.apiKey, maxRetries: 0 });
  return {
    emulator,
    client,
    async close() {
      await client.close();
      await emulator.close();
    },
  };
}

/** Calls a tool as the agent would: by name, with JSON arguments, through `executeToolCall`. */
export function callTool(
  tools: Tool[],
  client: SvcClient,
  name: string,
  args: unknown,
): Promise<ToolCallOutcome> {
  return executeToolCall({ toolSet: createToolSet(tools), call: createToolCall(name, args), client });
}

/** Parses a JSON tool result, failing loudly with the content when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(outcome: ToolCallOutcome): T {
  if (outcome.status !== 'ok') throw new Error(`tool failed (${outcome.status}): ${outcome.content}`);
  return JSON.parse(outcome.content) as T;
}
