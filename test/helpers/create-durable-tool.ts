import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolContext } from '../../src/tools/tool.js';

/** A tool for durable-run tests that records the context of each execution (run id, idempotency key). */
export function createDurableTool(
  name: string,
  options: { idempotent?: boolean; needsApproval?: boolean; execute?: (ctx: ToolContext) => unknown } = {},
) {
  const runs: ToolContext[] = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}`,
    parameters: z.object({}),
    idempotent: options.idempotent ?? false,
    needsApproval: options.needsApproval ?? false,
    execute: async (_args, ctx) => {
      runs.push(ctx);
      return options.execute ? options.execute(ctx) : `${name} done`;
    },
  });
  return { tool, runs };
}
