import type { ChatMessage } from '../../api/types/chat.js';
import { defineTool, TOOL_NAME_PATTERN } from '../../tools/define-tool.js';
import { transferredText } from '../../tools/model-texts.js';
import type { Tool } from '../../tools/tool.js';
import type { Agent } from '../agent.js';
import { AGENT_CORE, type AgentCore } from '../agent-core.js';
import { AgentOptionsError } from '../errors.js';
import type { AgentStep } from '../run-result.js';
import type { RunState } from '../run-state.js';
import type { StopCondition } from '../stop-conditions.js';

/** Chooses what history the next agent gets; `messages` ends with the transfer call and its result. */
export type HandoffInputFilter = (args: {
  messages: ChatMessage[];
  from: string;
  to: string;
}) => ChatMessage[];

/** A handoff target with its options; `handoff(agent, ...)` builds one, a bare agent means the defaults. */
export interface Handoff {
  readonly kind: 'handoff';
  // biome-ignore lint/suspicious/noExplicitAny: agents of any context and output can take over.
  readonly agent: Agent<any, any>;
  /** The tool the model calls. @default `transfer_to_<agent name>` */
  readonly toolName: string;
  /** The tool's description. @default from the agent's `handoffDescription` */
  readonly description: string;
  /** What history moves to the next agent. @default all of it */
  readonly inputFilter: HandoffInputFilter | undefined;
}

/** Options of `handoff`. */
export interface HandoffOptions {
  /** The tool the model calls. @default `transfer_to_<agent name>` */
  toolName?: string;
  /** The tool's description (when to hand off). */
  description?: string;
  /** What history moves to the next agent. @default all of it */
  inputFilter?: HandoffInputFilter;
}

/**
 * A handoff to `agent` with options: a custom tool name or description, or an input filter.
 * @example
 * new Agent({ ..., handoffs: [handoff(billing, { inputFilter: handoffFilters.removeToolHistory })] })
 */
// biome-ignore lint/suspicious/noExplicitAny: agents of any context and output can take over.
export function handoff(agent: Agent<any, any>, options: HandoffOptions = {}): Handoff {
  const toolName = options.toolName ?? `transfer_to_${agent.name}`;
  if (!TOOL_NAME_PATTERN.test(toolName)) {
    throw new AgentOptionsError({
      field: 'handoffs',
      rule: `tool name "${toolName}" must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$; give the agent a shorter name or pass toolName`,
    });
  }
  const description =
    options.description ??
    `Hand the conversation over to the ${agent.name} agent${agent.handoffDescription ? `: ${agent.handoffDescription}` : '.'}`;
  return Object.freeze({
    kind: 'handoff' as const,
    agent,
    toolName,
    description,
    inputFilter: options.inputFilter,
  });
}

/** Ready-made input filters. */
export const handoffFilters = {
  /** Keeps the user's messages and the assistants' text; drops tool calls and tool results. */
  removeToolHistory: ({ messages }: { messages: ChatMessage[] }): ChatMessage[] =>
    messages.filter(
      (message) =>
        message.role !== 'tool' &&
        !(message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0 && !message.content),
    ),
};

/** A handoff as the agent's options keep it: with the core of the agent that takes over. */
export interface HandoffTarget extends Handoff {
  /** What a run needs of the target agent, resolved when the handing-off agent is built. */
  readonly core: AgentCore;
}

/** The `handoffs` option as handoff targets: bare agents get the defaults. */
// biome-ignore lint/suspicious/noExplicitAny: agents of any context and output can take over.
export function toHandoffs(entries: ReadonlyArray<Agent<any, any> | Handoff>): HandoffTarget[] {
  const targets: HandoffTarget[] = [];
  entries.forEach((entry, i) => {
    const target = (entry as Handoff).kind === 'handoff' ? (entry as Handoff) : handoff(entry as Agent);
    const core = (target.agent as { [AGENT_CORE]?: AgentCore } | undefined)?.[AGENT_CORE];
    if (core === undefined) {
      throw new AgentOptionsError({
        field: `handoffs[${i}]`,
        rule: 'must be an Agent of this copy of svc-agents, or handoff(agent, options)',
      });
    }
    targets.push(Object.freeze({ ...target, core }));
  });
  return targets;
}

/** The `transfer_to_<name>` tools: running one only records the wish; the run then stops and hands off. */
export function createHandoffTools(handoffs: readonly Handoff[]): Tool[] {
  return handoffs.map((target) =>
    defineTool({
      name: target.toolName,
      description: target.description,
      idempotent: true,
      execute: () => transferredText(target.agent.name),
    }),
  );
}

/** The handoff the last step asked for (its first successful transfer call), if any. */
export function requestedHandoff<H extends Handoff>(
  step: AgentStep | undefined,
  handoffs: readonly H[],
): { handoff: H; toolCallId: string } | undefined {
  if (!step || handoffs.length === 0) return undefined;
  for (const result of step.toolResults) {
    if (result.status !== 'ok') continue;
    const target = handoffs.find((candidate) => candidate.toolName === result.toolName);
    if (target) return { handoff: target, toolCallId: result.toolCallId };
  }
  return undefined;
}

/** Stops a run after the tool turn that made a handoff, so the next agent can take over. */
export function stopOnHandoff(handoffs: readonly Handoff[]): StopCondition {
  return ({ steps }) => requestedHandoff(steps.at(-1), handoffs) !== undefined;
}

/**
 * The agent in charge of a run on `state` started on `start`: the one `state.currentAgent` names (found
 * through the handoff targets), or, for a state saved before it recorded that, the one its steps'
 * handoffs lead to.
 */
export function agentInCharge(start: AgentCore, state: RunState): AgentCore {
  const name = state.currentAgent;
  if (name === undefined) {
    let current = start;
    for (const step of state.steps) {
      const requested = requestedHandoff(step, current.options.handoffs);
      if (requested) current = requested.handoff.core;
    }
    if (current !== start) state.currentAgent = current.options.name;
    return current;
  }
  if (name === start.options.name) return start;
  const seen = new Set<AgentCore>([start]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const { core } of queue[i]!.options.handoffs) {
      if (core.options.name === name) return core;
      if (!seen.has(core)) {
        seen.add(core);
        queue.push(core);
      }
    }
  }
  return start;
}
