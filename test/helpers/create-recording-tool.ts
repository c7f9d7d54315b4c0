import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { NeedsApproval, ToolContext } from '../../src/tools/tool.js';

/** A tool that records each execution, for "ran exactly once" assertions. */
export function createRecordingTool(
  name: string,
  overrides: {
    execute?: (args: Record<string, unknown>, ctx: ToolContext) => unknown;
    needsApproval?: NeedsApproval<Record<string, unknown>>;
    timeoutMs?: number;
  } = {},
) {
  const calls: Array<{ args: Record<string, unknown>; toolCallId: string; signal: AbortSignal }> = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}`,
    parameters: z.looseObject({}),
    execute: async (args: Record<string, unknown>, ctx) => {
      calls.push({ args, toolCallId: ctx.toolCallId, signal: ctx.signal });
      return overrides.execute ? overrides.execute(args, ctx) : `${name} ok ${JSON.stringify(args)}`;
    },
    ...(overrides.needsApproval === undefined ? {} : { needsApproval: overrides.needsApproval }),
    ...(overrides.timeoutMs === undefined ? {} : { timeoutMs: overrides.timeoutMs }),
  });
  return { tool, calls };
}
