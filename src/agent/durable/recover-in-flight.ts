import { interruptedText } from '../../tools/model-texts.js';
import type { ToolSet } from '../../tools/tool.js';
import type { RunState } from '../run-state.js';

/**
 * Settles the calls that were running when the last checkpoint was written and have no outcome: an
 * `idempotent` tool's call runs again on resume; any other is answered as interrupted (it may have taken
 * effect), so the model decides instead of the call running twice.
 */
export async function recoverInFlight(
  state: RunState,
  inFlight: readonly string[] | undefined,
  toolSet: ToolSet,
): Promise<void> {
  if (!inFlight || inFlight.length === 0) return;
  const running = new Set(inFlight);
  const settled: Promise<unknown>[] = [];
  for (const call of state.pendingToolCalls) {
    if (!running.has(call.toolCallId) || state.ledger.get(call.toolCallId) !== undefined) continue;
    if (toolSet.functions.get(call.toolName)?.idempotent === true) continue;
    settled.push(
      state.ledger.run(call.toolCallId, async () => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
        status: 'aborted',
        output: undefined,
        content: interruptedText(call.toolName),
        executed: true,
      })),
    );
  }
  await Promise.all(settled);
}
