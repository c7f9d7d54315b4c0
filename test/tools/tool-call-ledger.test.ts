import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
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

describe('ToolCallLedger', () => {
  describe('when a call is retried with the same ledger', () => {
    it('should run its tool once and answer the same outcome', async () => {
      const { toolSet, stats } = createCountingTool();
      const ledger = new ToolCallLedger();
      const call = createToolCall('work', { n: 1 });
      const first = await executeToolCall({ toolSet, call, ledger });
      const retried = await executeToolCall({ toolSet, call, ledger });
      expect(stats.calls).toBe(1);
      expect(retried).toBe(first);
    });

    it('should run its tool once after the ledger went through JSON', async () => {
      const { toolSet, stats } = createCountingTool();
      const ledger = new ToolCallLedger();
      const call = createToolCall('work', { n: 7 }, 'call_saved');
      await executeToolCall({ toolSet, call, ledger });
      const restored = ToolCallLedger.fromJSON(JSON.stringify(ledger));
      const outcome = await executeToolCall({ toolSet, call, ledger: restored });
      expect(stats.calls).toBe(1);
      expect(outcome).toMatchObject({
        toolCallId: 'call_saved',
        status: 'ok',
        content: 'done 7',
        output: 'done 7',
      });
    });
  });

  describe('when run concurrently with one id', () => {
    it('should call the function once and share its outcome', async () => {
      const ledger = new ToolCallLedger();
      let calls = 0;
      const fn = async () => {
        calls++;
        // A slow function, so two concurrent calls overlap.
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
      const aborted = await executeToolCall({ toolSet, call, ledger, signal: AbortSignal.abort() });
      expect(aborted.status).toBe('aborted');
      expect(ledger.has(call.id)).toBe(false);
      const resumed = await executeToolCall({ toolSet, call, ledger });
      expect(resumed.status).toBe('ok');
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
