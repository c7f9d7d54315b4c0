import { z } from 'zod';
import type { RunRecord } from '../../src/agent/durable/store.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { defineTool } from '../../src/tools/define-tool.js';

/**
 * A quick lookup and a slow, non-idempotent transfer whose first execution waits for `release()`: the pair
 * the store-fault tests run in parallel, so a checkpoint can fail while the transfer is still in flight.
 */
export function createTransferTools() {
  const executions: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let finished = 0;
  const tools = [
    defineTool({
      name: 'fast_lookup',
      description: 'Looks the account up.',
      parameters: z.object({}),
      execute: async () => 'FAST-RESULT',
    }),
    defineTool({
      name: 'slow_transfer',
      description: 'Moves the money.',
      parameters: z.object({}),
      idempotent: false,
      // Ignores its signal, as a payment call already sent does: the transfer happens all the same.
      execute: async (_args, ctx) => {
        executions.push(ctx.idempotencyKey);
        if (executions.length === 1) await gate;
        finished++;
        return 'TRANSFERRED';
      },
    }),
  ];
  return {
    tools,
    executions,
    release,
    get finished() {
      return finished;
    },
  };
}

/** The tool messages of a record's state by call id: each call must be answered exactly once. */
export function toolAnswers(record: RunRecord | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const message of (record?.state.messages ?? []) as ChatMessage[]) {
    if (message.role === 'tool') counts[message.tool_call_id] = (counts[message.tool_call_id] ?? 0) + 1;
  }
  return counts;
}
