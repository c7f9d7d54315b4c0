import type { AnyTool, ToolContext } from './tool.js';

/** Whether a call of `tool` with `args` must be approved by a human first; hosted tools never are. */
export async function resolveNeedsApproval<Args, C>(
  tool: AnyTool,
  args: Args,
  ctx: ToolContext<C>,
): Promise<boolean> {
  if (tool.kind !== 'function') return false;
  const policy = tool.needsApproval;
  if (typeof policy === 'function') return (await policy(args, ctx)) === true;
  return policy === true;
}
