import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/agent/durable/store.js';
import { buildRunTimeline } from '../../../src/web/inspector/run-timeline.js';

function createRecord(state: Record<string, unknown>): RunRecord {
  return {
    id: 'r1',
    agentName: 'a',
    status: 'running',
    state,
    interruptions: [],
    version: 3,
    createdAt: 1_000,
    updatedAt: 1_500,
  };
}

const usage = { promptTokens: 8, completionTokens: 2, totalTokens: 10, cachedTokens: 4, cost: 0.5 };

describe('buildRunTimeline', () => {
  describe('when a run failed a request, was resumed and now runs a tool', () => {
    it('should put the fault before the step it was for, then the step, then the running call', () => {
      const timeline = buildRunTimeline(
        createRecord({
          faults: [
            { step: 0, requestedAt: 1_010, at: 1_100, error: 'InternalServerError: 503', status: 503 },
          ],
          resumes: [{ at: 1_200, from: 'failed', worker: 'host:1', inFlight: [] }],
          steps: [
            {
              index: 0,
              usage,
              toolResults: [],
              finishReason: 'tool_calls',
              timing: { requestedAt: 1_210, firstTokenAt: 1_250, doneAt: 1_300 },
            },
          ],
          pendingToolCalls: [
            { toolCallId: 'c1', toolName: 'slow', approval: 'none', startedAt: 1_310 },
            { toolCallId: 'c2', toolName: 'ask', approval: 'pending', approvalRequestedAt: 1_305 },
          ],
        }),
      );
      expect(timeline.lanes.map((lane) => [lane.kind, 'error' in lane ? 'fault' : lane.step])).toEqual([
        ['model', 'fault'],
        ['model', 0],
        ['tool', 0],
        ['tool', 0],
      ]);
      expect(timeline.lanes[2]).toMatchObject({ toolName: 'slow', status: 'running', startedAt: 1_310 });
      expect(timeline.lanes[3]).toMatchObject({
        status: 'waiting',
        approval: { requestedAt: 1_305, decision: 'pending' },
      });
      expect(timeline.totals).toEqual({
        tokens: { input: 8, output: 2, cached: 4, total: 10 },
        costUsd: 0.5,
        steps: 1,
      });
      expect([timeline.start, timeline.end, timeline.timed]).toEqual([1_000, 1_500, true]);
    });
  });
});
