import type { SvcClient } from '../api/svc-client.js';
import type { CreateChatCompletion } from './call-model.js';
import type { AgentEvent } from './events.js';
import type { NormalizedAgentOptions } from './normalize-agent-options.js';
import type { RunAgentOptions } from './run-agent.js';
import type { RunState } from './run-state.js';

/** What runs composed of several agents (handoffs) need of each agent, kept off its public surface. */
export interface AgentInternals {
  options: NormalizedAgentOptions;
  client: SvcClient;
  create: CreateChatCompletion;
  /** The agent's output schema and the request part it adds (built once per agent), or undefined. */
  output: () => RunAgentOptions['output'];
  /** Puts the agent's own context window (if any) in front of a model call of a run on `state`. */
  wrapCreate: (
    create: CreateChatCompletion,
    state: RunState,
    emit: ((event: AgentEvent) => void) | undefined,
  ) => Promise<CreateChatCompletion>;
}

const registry = new WeakMap<object, AgentInternals>();

/** Called by the `Agent` constructor. */
export function registerAgentInternals(agent: object, internals: AgentInternals): void {
  registry.set(agent, internals);
}

/** The internals of an agent built by this copy of svc-agents. */
export function agentInternals(agent: object): AgentInternals {
  const internals = registry.get(agent);
  if (!internals) throw new TypeError('not an Agent of this copy of svc-agents');
  return internals;
}
