import { defineTool } from '../tools/define-tool.js';
import { ToolSuspendedError } from '../tools/errors.js';
import type { Tool } from '../tools/tool.js';
import type { Agent } from './agent.js';
import { currentRunScope, markScopedTool } from './loop/run-scope.js';
import { addUsage, emptyUsage, subtractUsage } from './usage.js';

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
 * are forwarded as `sub-agent` events, its usage is added to the parent's `usage`, and when it pauses for
 * approvals the parent pauses with those calls in its `interruptions`; `parent.run(state)` resumes both.
 */
export function agentAsTool<C>(
  // biome-ignore lint/suspicious/noExplicitAny: any sub-agent output type.
  agent: Agent<C, any>,
  options: AgentToolOptions<C>,
): Tool<{ input: string }, string, C> {
  const { name, description, needsApproval = false, timeoutMs = 300_000 } = options;
  const tool = defineTool({
    name,
    description,
    parameters,
    timeoutMs,
    needsApproval: needsApproval as boolean | ((args: Record<string, unknown>) => boolean | Promise<boolean>),
    execute: async (args, ctx) => {
      const scope = currentRunScope();
      // Inside a run, the parent's pending call holds the sub-run while it waits for approvals.
      const parentCall = scope?.state.pendingToolCalls.find((call) => call.toolCallId === ctx.toolCallId);
      const saved = parentCall?.subRun;
      const input = saved ?? String(args.input ?? '');
      const runOptions = { context: (options.context ?? ctx.context) as C, signal: ctx.signal };
      let result: Awaited<ReturnType<typeof agent.run>>;
      if (scope?.emit) {
        const stream = agent.stream(input, runOptions);
        for await (const event of stream) {
          scope.emit?.({ type: 'sub-agent', agent: agent.name, toolCallId: ctx.toolCallId, event });
        }
        result = await stream.result;
      } else {
        result = await agent.run(input, runOptions);
      }
      if (scope) {
        // A resumed sub-run's usage includes its earlier part, already counted.
        const earlier = saved?.usage ?? emptyUsage();
        scope.state.usage = addUsage(scope.state.usage, subtractUsage(result.usage, earlier));
      }
      if (result.status === 'interrupted') {
        if (!scope || !parentCall) {
          throw new Error(
            `agent ${agent.name} paused for a human approval, which needs a parent run to wait in`,
          );
        }
        // The parent run pauses too: the sub-agent's calls are its interruptions, and the whole tree
        // resumes from the parent's state (the sub-run's ledger keeps its finished calls done).
        parentCall.subRun = result.state;
        parentCall.approval = 'pending';
        for (const { toolCallId, toolName, input: callInput } of result.interruptions) {
          scope.emit?.({ type: 'tool-approval-request', toolCallId, toolName, input: callInput });
        }
        const waiting = result.interruptions.map((call) => call.toolName).join(', ');
        throw new ToolSuspendedError({
          toolName: name,
          reason: `agent ${agent.name} waits for approval of ${waiting}`,
        });
      }
      if (parentCall) delete parentCall.subRun;
      return result.output !== undefined ? JSON.stringify(result.output) : result.text;
    },
  });
  return markScopedTool(tool) as unknown as Tool<{ input: string }, string, C>;
}
