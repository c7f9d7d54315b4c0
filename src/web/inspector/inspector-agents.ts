import type { Agent } from '../../agent/agent.js';

/** What an inspector agent factory is told: the run it serves, and what a fork changes. */
export interface InspectorAgentContext {
  /** The run the agent will run (a fork's new id). */
  runId: string;
  /** Who the run acts for; the inspector starts forks for nobody in particular. */
  owner: undefined;
  /** What the fork changes: build the agent with this model and these instructions when given. */
  changes: { model?: string; instructions?: string };
}

/**
 * An agent the inspector forks runs and exports recordings with, or a factory building one per fork (as
 * `startWorker`'s `agents`). Only a factory can take a fork's changed model or instructions.
 */
export type InspectorAgent =
  // biome-ignore lint/suspicious/noExplicitAny: agents with any context and output type share one map.
  | Agent<any, any>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  | ((run: InspectorAgentContext) => Agent<any, any> | Promise<Agent<any, any>>);

/** Why runs of `agentName` cannot be forked or exported here, or undefined when they can. */
export function agentUnavailableReason(
  agents: Readonly<Record<string, InspectorAgent>>,
  agentName: string,
): string | undefined {
  if (Object.hasOwn(agents, agentName)) return undefined;
  const known = Object.keys(agents);
  return `no agent "${agentName}" was given to the inspector (${known.length > 0 ? `it has ${known.map((name) => `"${name}"`).join(', ')}` : 'it has none'}); pass it in agents (svc-agents inspect --agents ./module.ts)`;
}

/** The agent of `agentName` for `context`; undefined when the inspector has none of that name. */
export async function resolveInspectorAgent(
  agents: Readonly<Record<string, InspectorAgent>>,
  agentName: string,
  context: InspectorAgentContext,
  // biome-ignore lint/suspicious/noExplicitAny: as above.
): Promise<Agent<any, any> | undefined> {
  if (!Object.hasOwn(agents, agentName)) return undefined;
  const agent = agents[agentName]!;
  return typeof agent === 'function' ? agent(context) : agent;
}
