import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { executeToolCalls } from '../../src/tools/execute-tool-calls.js';
import { ToolCallLedger } from '../../src/tools/tool-call-ledger.js';
import { createToolCall } from '../helpers/create-tool-call.js';

/** A tool that counts calls and the most calls in flight at once. */
function createCountingTool() {
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0 };
  const tool = defineTool({
    name: 'work',
    description: 'Does some work.',
    parameters: z.object({ n: z.number(), delayMs: z.number().default(5) }),
    execute: async ({ n, delayMs }) => {
      stats.calls++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      await sleep(delayMs);
      stats.inFlight--;
      return `done ${n}`;
    },
  });
  return { toolSet: createToolSet([tool]), stats };
}

describe('executeToolCalls', () => {
  describe('when many calls arrive in one turn', () => {
    it('should run at most 8 at a time by default', async () => {
      const { toolSet, stats } = createCountingTool();
      const calls = Array.from({ length: 20 }, (_, n) => createToolCall('work', { n }));
      await executeToolCalls(calls, { toolSet });
      expect(stats.calls).toBe(20);
      expect(stats.maxInFlight).toBe(8);
    });

    it('should honour a smaller concurrency', async () => {
      const { toolSet, stats } = createCountingTool();
      const calls = Array.from({ length: 10 }, (_, n) => createToolCall('work', { n }));
      await executeToolCalls(calls, { toolSet, concurrency: 3 });
      expect(stats.maxInFlight).toBe(3);
    });

    it('should answer in the order of the calls, not of completion', async () => {
      const { toolSet } = createCountingTool();
      const calls = [40, 1, 20, 5].map((delayMs, n) => createToolCall('work', { n, delayMs }));
      const outcomes = await executeToolCalls(calls, { toolSet });
      expect(outcomes.map((outcome) => outcome.toolCallId)).toEqual(calls.map((call) => call.id));
      expect(outcomes.map((outcome) => outcome.content)).toEqual(['done 0', 'done 1', 'done 2', 'done 3']);
    });

    it('should refuse a concurrency below 1', async () => {
      const { toolSet } = createCountingTool();
      await expect(executeToolCalls([], { toolSet, concurrency: 0 })).rejects.toThrow('concurrency');
    });
  });

  describe("when a tool throws with toolErrors 'throw'", () => {
    it('should reject and start no further call', async () => {
      let started = 0;
      const failing = defineTool({
        name: 'fail',
        description: 'Fails.',
        execute: async () => {
          started++;
          await sleep(1);
          throw new Error('boom');
        },
      });
      const calls = Array.from({ length: 6 }, () => createToolCall('fail'));
      const promise = executeToolCalls(calls, {
        toolSet: createToolSet([failing]),
        concurrency: 2,
        toolErrors: 'throw',
      });
      await expect(promise).rejects.toThrow('Error in fail: boom');
      await sleep(20);
      expect(started).toBe(2);
    });
  });

  describe('when a tool_call_id repeats', () => {
    it('should run it once within one batch', async () => {
      const { toolSet, stats } = createCountingTool();
      const call = createToolCall('work', { n: 1 }, 'call_same');
      const outcomes = await executeToolCalls([call, call, call], { toolSet });
      expect(stats.calls).toBe(1);
      expect(outcomes).toHaveLength(3);
      expect(new Set(outcomes).size).toBe(1);
    });

    it('should run it once across retried batches sharing a ledger', async () => {
      const { toolSet, stats } = createCountingTool();
      const ledger = new ToolCallLedger();
      const calls = [createToolCall('work', { n: 1 }), createToolCall('work', { n: 2 })];
      const first = await executeToolCalls(calls, { toolSet, ledger });
      const retried = await executeToolCalls(calls, { toolSet, ledger });
      expect(stats.calls).toBe(2);
      expect(retried).toEqual(first);
    });

    it('should run it once after the ledger went through JSON', async () => {
      const { toolSet, stats } = createCountingTool();
      const ledger = new ToolCallLedger();
      const call = createToolCall('work', { n: 7 }, 'call_saved');
      await executeToolCalls([call], { toolSet, ledger });
      const restored = ToolCallLedger.fromJSON(JSON.stringify(ledger));
      const [outcome] = await executeToolCalls([call], { toolSet, ledger: restored });
      expect(stats.calls).toBe(1);
      expect(outcome).toMatchObject({
        toolCallId: 'call_saved',
        status: 'ok',
        content: 'done 7',
        output: 'done 7',
      });
    });
  });
});

describe('ToolCallLedger', () => {
  describe('when run concurrently with one id', () => {
    it('should call the function once and share its outcome', async () => {
      const ledger = new ToolCallLedger();
      let calls = 0;
      const fn = async () => {
        calls++;
        await sleep(5);
        return {
          toolCallId: 'a',
          toolName: 't',
          input: {},
          status: 'ok' as const,
          output: 1,
          content: '1',
          executed: true,
        };
      };
      const [one, two] = await Promise.all([ledger.run('a', fn), ledger.run('a', fn)]);
      expect(calls).toBe(1);
      expect(one).toBe(two);
      expect(ledger.get('a')).toBe(one);
    });
  });

  describe('when a call was aborted before its tool started', () => {
    it('should forget it so a resumed run can start it', async () => {
      const { toolSet, stats } = createCountingTool();
      const ledger = new ToolCallLedger();
      const call = createToolCall('work', { n: 1 });
      const [aborted] = await executeToolCalls([call], { toolSet, ledger, signal: AbortSignal.abort() });
      expect(aborted?.status).toBe('aborted');
      expect(ledger.has(call.id)).toBe(false);
      const [resumed] = await executeToolCalls([call], { toolSet, ledger });
      expect(resumed?.status).toBe('ok');
      expect(stats.calls).toBe(1);
    });
  });

  describe('when serialised', () => {
    it('should keep completed outcomes only, without errors or non-JSON output', async () => {
      const ledger = new ToolCallLedger();
      const error = new Error('boom');
      await ledger.run('x', async () => ({
        toolCallId: 'x',
        toolName: 't',
        input: { a: 1 },
        status: 'error',
        output: undefined,
        content: 'Error in t: boom',
        error,
        executed: true,
      }));
      void ledger.run('pending', () => new Promise(() => {}));
      expect(ledger.toJSON()).toEqual({
        $schemaVersion: 1,
        entries: [
          { toolCallId: 'x', toolName: 't', input: { a: 1 }, status: 'error', content: 'Error in t: boom' },
        ],
      });
    });

    it('should refuse an unknown version with a clear error', () => {
      expect(() => ToolCallLedger.fromJSON({ $schemaVersion: 2, entries: [] })).toThrow(
        /Invalid tool-call ledger: \$schemaVersion/,
      );
    });
  });
});
