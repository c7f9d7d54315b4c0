import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';

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
