import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../tools/tool.js';
import type { Agent } from './agent.js';
import { ignoreEvents } from './ignore-events.js';
import { currentRunScope } from './run-scope.js';
import { addUsage } from './usage.js';

/** Options of `agent.asTool`. */
export interface AgentToolOptions<C = unknown> {
  /** Name the parent's model calls the tool by. */
  name: string;
  /** What the agent does and when to ask it, written for the parent's model. */
  description: string;
  /** Whether a human must approve each call of the sub-agent. @default false */
  needsApproval?: boolean | ((args: { input: string }) => boolean | Promise<boolean>);
  /** Time limit of one sub-agent run, in milliseconds. @default 300_000 */
  timeoutMs?: number;
  /** Handed to the sub-agent's run instead of the parent's context. */
  context?: C;
}

const parameters = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The request for the agent, in full sentences' } },
  required: ['input'],
  additionalProperties: false,
} as const;

/**
 * Another agent as a tool: the parent's model sends it a request, the sub-agent runs to its answer (its
 * structured output as JSON, else its text), which is the tool result. Inside a parent's run its events
 * are forwarded as `sub-agent` events and its usage is added to the parent's `usage`.
 */
export function agentAsTool<C>(
  // biome-ignore lint/suspicious/noExplicitAny: any sub-agent output type.
  agent: Agent<C, any>,
  options: AgentToolOptions<C>,
): Tool<{ input: string }, string, C> {
  const { name, description, needsApproval = false, timeoutMs = 300_000 } = options;
  return defineTool({
    name,
    description,
    parameters,
    timeoutMs,
    needsApproval: needsApproval as boolean | ((args: Record<string, unknown>) => boolean | Promise<boolean>),
    execute: async (args, ctx) => {
      const input = String(args.input ?? '');
      const scope = currentRunScope();
      const runOptions = { context: (options.context ?? ctx.context) as C, signal: ctx.signal };
      let result: Awaited<ReturnType<typeof agent.run>>;
      if (scope && scope.emit !== ignoreEvents) {
        const stream = agent.stream(input, runOptions);
        for await (const event of stream) {
          scope.emit({ type: 'sub-agent', agent: agent.name, toolCallId: ctx.toolCallId, event });
        }
        result = await stream.result;
      } else {
        result = await agent.run(input, runOptions);
      }
      if (scope) scope.state.usage = addUsage(scope.state.usage, result.usage);
      if (result.status === 'interrupted') {
        const waiting = result.interruptions.map((call) => call.toolName).join(', ');
        throw new Error(
          `agent ${agent.name} paused for a human approval of ${waiting}; approvals inside an agent tool are not supported, give the tool needsApproval instead`,
        );
      }
      return result.output !== undefined ? JSON.stringify(result.output) : result.text;
    },
  }) as unknown as Tool<{ input: string }, string, C>;
}
