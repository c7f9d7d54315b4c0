import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { RequestBudget } from '../../src/agent/request-budget.js';
import { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { createTestAgent } from '../helpers/create-test-agent.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

// The times a run keeps in its state for the run inspector (step.timing, tool and approval times, resumes).

describe('step timing', () => {
  const env = useAgentTestEnv();

  describe('when a step is answered', () => {
    it('should keep when it was requested, first streamed and done, in order, through toJSON and fromJSON', async () => {
      const agent = createTestAgent(env);
      const result = await agent.stream('Say hello').result;
      const timing = result.steps[0]!.timing!;
      expect(timing.firstTokenAt).toBeGreaterThanOrEqual(timing.requestedAt);
      expect(timing.doneAt).toBeGreaterThanOrEqual(timing.firstTokenAt!);
      expect(timing.sentAt).toBeUndefined();
      const read = RunState.fromJSON(JSON.parse(JSON.stringify(result.state)), agent);
      expect(read.steps[0]!.timing).toEqual(timing);
    });
  });

  describe('when the client retries a rate-limited attempt', () => {
    it('should record the retry with its status and wait', async () => {
      env.emu.script([{ error: { status: 429, headers: { 'retry-after-ms': '5' } } }, answer('ok')]);
      const client = new SvcClient({ apiKey: env.emu.apiKey, baseURL: env.emu.baseURL, maxRetries: 1 });
      const result = await new Agent({ client, model: 'svc-3.5-flash' }).run('Hi');
      expect(result.steps[0]!.timing!.retries).toEqual([
        {
          at: expect.any(Number),
          attempt: 2,
          delayMs: 5,
          status: 429,
          rateLimited: true,
          model: 'svc-3.5-flash',
        },
      ]);
      await client.close();
    });
  });

  describe('when a model request fails for good', () => {
    it('should keep the fault with its retries on the failed record, and the resume that went on', async () => {
      const store = memoryStore();
      env.emu.script([
        { error: { status: 503 } },
        { error: { status: 503, headers: { 'retry-after-ms': '1' } } },
        answer('back'),
      ]);
      const client = new SvcClient({ apiKey: env.emu.apiKey, baseURL: env.emu.baseURL, maxRetries: 1 });
      const agent = new Agent({ name: 'faulty', client, model: 'svc-3.5-flash', store });
      const error = (await agent.run('Hi').catch((caught: unknown) => caught)) as { runId: string };
      const failed = (await store.getRun(error.runId))!;
      expect(failed.status).toBe('failed');
      const faults = (failed.state as { faults: unknown[] }).faults;
      expect(faults).toEqual([
        {
          step: 0,
          requestedAt: expect.any(Number),
          at: expect.any(Number),
          error: expect.stringMatching(/^\w+Error: /),
          status: 503,
          retries: [expect.objectContaining({ attempt: 2, status: 503, rateLimited: false })],
        },
      ]);
      const resumed = await agent.resume(error.runId);
      expect(resumed.text).toBe('back');
      const state = (await store.getRun(error.runId))!.state as {
        faults: unknown[];
        resumes: Array<{ from: string }>;
      };
      expect(state.faults).toHaveLength(1);
      expect(state.resumes.map((resume) => resume.from)).toEqual(['failed']);
      await client.close();
    });
  });

  describe('when a fallback model answers', () => {
    it('should record the move with when it happened', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash-2603', status: 503 }]);
      const agent = createTestAgent(env, { model: ['svc-3.5-flash-2603', 'svc-3.7-flash'] });
      const result = await agent.run('Say hello');
      const timing = result.steps[0]!.timing!;
      expect(timing.fallbacks).toEqual([
        { at: expect.any(Number), from: 'svc-3.5-flash-2603', to: 'svc-3.7-flash', reason: 'status 503' },
      ]);
      expect(timing.fallbacks![0]!.at).toBeGreaterThanOrEqual(timing.requestedAt);
    });
  });

  describe('when a request budget admits the request', () => {
    it('should record when it was sent, after it was requested', async () => {
      const budget: RequestBudget = {
        acquire: async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { rateLimited: () => undefined, settle: () => undefined };
        },
      };
      const result = await createTestAgent(env).run('Hi', { requestBudget: budget });
      const timing = result.steps[0]!.timing!;
      expect(timing.sentAt).toBeGreaterThan(timing.requestedAt);
      expect(timing.doneAt).toBeGreaterThanOrEqual(timing.sentAt!);
    });
  });

  describe('when a call waits for approval and a stored run is resumed', () => {
    it('should keep the approval times on the result and the resume on the state', async () => {
      const store = memoryStore();
      env.emu.script([toolTurn(['call_1', 'ask'], ['call_2', 'free']), answer('done')]);
      const { defineTool } = await import('../../src/tools/define-tool.js');
      const { z } = await import('zod');
      const tools = [
        defineTool({
          name: 'ask',
          description: 'needs a human',
          parameters: z.object({}),
          needsApproval: true,
          execute: () => 'asked',
        }),
        defineTool({ name: 'free', description: 'runs', parameters: z.object({}), execute: () => 'free' }),
      ];
      const agent = createTestAgent(env, { tools, store });
      const paused = await agent.run('Go');
      expect(paused.status).toBe('interrupted');
      // The free call ran before the pause: its times are on the pending call until the turn settles.
      const pendingFree = paused.state.pendingToolCalls.find((call) => call.toolCallId === 'call_2')!;
      expect(pendingFree.finishedAt).toBeGreaterThanOrEqual(pendingFree.startedAt!);
      paused.state.approve('call_1');
      const stored = (await store.getRun(paused.runId))!;
      const resumedFromStore = RunState.fromJSON(stored.state as never, agent);
      expect(
        resumedFromStore.pendingToolCalls.find((call) => call.toolCallId === 'call_1')?.approvalRequestedAt,
      ).toEqual(expect.any(Number));
      const done = await agent.run(paused.state, { runId: paused.runId });
      const [ask, free] = done.steps[0]!.toolResults;
      expect(ask!.approval).toEqual({
        requestedAt: expect.any(Number),
        decidedAt: expect.any(Number),
        decision: 'approved',
      });
      expect(ask!.startedAt).toBeGreaterThanOrEqual(ask!.approval!.decidedAt!);
      expect(free!.approval).toBeUndefined();
      expect(free!.startedAt).toBe(pendingFree.startedAt);

      // A resume from the store is recorded with the process that took the run up.
      const record = (await store.getRun(paused.runId))!;
      const stalled = await store.updateRun(record.id, record.version, {
        ...record,
        status: 'running',
        state: record.state,
      });
      await agent.resume(record.id);
      const resumes = ((await store.getRun(record.id))!.state as { resumes?: unknown[] }).resumes;
      expect(resumes).toEqual([
        {
          at: expect.any(Number),
          from: 'running',
          worker: expect.stringMatching(/:\d+$/),
          inFlight: [],
          lastCheckpointAt: stalled.updatedAt,
          steps: 2,
        },
      ]);
    });
  });
});
