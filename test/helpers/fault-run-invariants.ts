import { expect } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { RunRecord, Store } from '../../src/agent/durable/store.js';
import { isStepCount } from '../../src/agent/stop-conditions.js';
import type { SvcClient } from '../../src/api/svc-client.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { defineTool } from '../../src/tools/define-tool.js';

/** Tool turns per run of the fault agent. */
export const FAULT_TURNS = 2;

/** A scripted turn of the fault agent: a non-idempotent `write` and an idempotent `lookup`, in parallel. */
export const faultTurn = {
  message: {
    content: '',
    tool_calls: ['write', 'lookup'].map((name) => ({ function: { name, arguments: '{}' } })),
  },
};

/** One tool execution that started, by tool call (idempotency key) and process. */
export interface ToolStart {
  tool: string;
  key: string;
}

/**
 * The agent of the fault tests: each run makes exactly `FAULT_TURNS` turns of `faultTurn`, its tools
 * taking `toolMs` (aborted with their signal) and logging each start into `starts`.
 */
export function createFaultAgent(client: SvcClient, starts: ToolStart[], toolMs = 150) {
  const tool = (name: string, idempotent: boolean) =>
    defineTool({
      name,
      description: `Fault test tool ${name}`,
      parameters: z.object({}),
      idempotent,
      execute: async (_args, ctx) => {
        starts.push({ tool: name, key: ctx.idempotencyKey });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, toolMs);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        });
        return `${name} done`;
      },
    });
  return new Agent({
    client,
    model: 'svc-3.5-flash',
    tools: [tool('write', false), tool('lookup', true)],
    stopWhen: isStepCount(FAULT_TURNS),
    maxTurns: 10,
  });
}

/** Reads the runs until none is `running` or `timeoutMs` passed; answers the last records read. */
export async function settleRuns(store: Store, ids: readonly string[], timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const records = await Promise.all(ids.map((id) => store.getRun(id).catch(() => undefined)));
    if (records.every((record) => record && record.status !== 'running') || Date.now() > end) {
      return records;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The invariants of every fault test: each run completed with every tool call answered exactly once,
 * right after its turn, and no non-idempotent call started twice.
 */
export function expectFaultInvariants(
  records: readonly (RunRecord | undefined)[],
  starts: readonly ToolStart[],
) {
  for (const record of records) {
    expect(record?.status, `run ${record?.id}: ${record?.error ?? ''}`).toBe('completed');
    const messages = record!.state.messages as ChatMessage[];
    expect(messages).toHaveLength(1 + FAULT_TURNS * 3);
    for (let turn = 0; turn < FAULT_TURNS; turn++) {
      const assistant = messages[1 + turn * 3] as { role: string; tool_calls: Array<{ id: string }> };
      expect(assistant.role).toBe('assistant');
      const answers = messages.slice(2 + turn * 3, 4 + turn * 3) as Array<{
        role: string;
        tool_call_id: string;
      }>;
      expect(answers.map((answer) => answer.role)).toEqual(['tool', 'tool']);
      expect(answers.map((answer) => answer.tool_call_id)).toEqual(
        assistant.tool_calls.map((call) => call.id),
      );
    }
  }
  const writes = starts.filter((start) => start.tool === 'write').map((start) => start.key);
  expect(writes.length, 'a non-idempotent call started twice').toBe(new Set(writes).size);
}
