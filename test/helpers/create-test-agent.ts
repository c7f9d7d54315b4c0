import { Agent } from '../../src/agent/agent.js';
import type { AgentOptions } from '../../src/agent/agent-options.js';
import type { AgentTestEnv } from './use-agent-test-env.js';

/** An agent on the test emulator's client and the default model, with any option overridden. */
export function createTestAgent(env: AgentTestEnv, overrides: Partial<AgentOptions> = {}): Agent {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', ...overrides });
}
