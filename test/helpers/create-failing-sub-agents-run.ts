import { Agent } from '../../src/agent/agent.js';
import { SvcError } from '../../src/core/errors.js';
import type { AgentTestEnv } from './use-agent-test-env.js';

/**
 * A parent agent whose two sub-agents (as tools) fail with the API key in their errors: `plain` with an
 * Error, `typed` with an SvcError (each thrown by its `tools` function). The emulator is scripted to call
 * both, then answer; the masking of nested errors is checked on what comes out.
 */
export function createFailingSubAgentsRun(env: AgentTestEnv): Agent {
  const key = env.emu.apiKey;
  const failingAgent = (name: string, error: () => Error) =>
    new Agent({
      client: env.client,
      model: 'svc-3.5-flash',
      name,
      tools: () => {
        throw error();
      },
    });
  const plain = failingAgent('plain', () => new Error(`tool registry refused token=${key}`));
  const typed = failingAgent('typed', () => new SvcError(`tool registry refused api_key=${key}`));
  env.emu.script([
    {
      message: {
        content: '',
        tool_calls: [
          { id: 'p1', function: { name: 'ask_plain', arguments: '{"input":"go"}' } },
          { id: 'p2', function: { name: 'ask_typed', arguments: '{"input":"go"}' } },
        ],
      },
    },
    { message: { content: 'Both helpers failed.' } },
  ]);
  return new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    tools: [
      plain.asTool({ name: 'ask_plain', description: 'Asks one helper' }),
      typed.asTool({ name: 'ask_typed', description: 'Asks another helper' }),
    ],
  });
}
