import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { RunConflictError } from '../../../src/agent/errors.js';
import type { InterruptedRunResult } from '../../../src/agent/run-result.js';
import { RunState } from '../../../src/agent/run-state.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { answer } from '../../helpers/tool-turn.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const payCall = (id: string) => ({
  message: { content: '', tool_calls: [{ id, function: { name: 'pay', arguments: '{}' } }] },
});

function createAgent(store = memoryStore()) {
  const paid: string[] = [];
  const pay = defineTool({
    name: 'pay',
    description: 'Pays',
    parameters: z.object({}),
    needsApproval: true,
    execute: async (_args, ctx) => {
      paid.push(ctx.toolCallId);
      return 'paid';
    },
  });
  return {
    agent: new Agent({ client: env.client, model: 'svc-3.5-flash', store, tools: [pay] }),
    store,
    paid,
  };
}

const statuses = async (store: ReturnType<typeof memoryStore>) =>
  (await store.listRuns()).map((run) => [run.id, run.status]);

describe('continuing a paused stored run with agent.run(state, { runId })', () => {
  it('should continue the same record with the decisions in the state, to one completed run', async () => {
    const { agent, store, paid } = createAgent();
    env.emu.script([payCall('c1'), answer('Paid.')]);
    const paused = (await agent.run('Pay it', { runId: 'r1' })) as InterruptedRunResult;
    // The state travels as JSON, as it would to a browser and back.
    const state = RunState.fromJSON(JSON.stringify(paused.state), agent).approve('c1');
    const events: string[] = [];
    const stream = agent.stream(state, { runId: paused.runId });
    for await (const event of stream) events.push(event.type);
    const done = await stream.result;
    expect(done).toMatchObject({ status: 'completed', text: 'Paid.', runId: 'r1' });
    expect(events).toContain('tool-result');
    expect(paid).toEqual(['c1']);
    expect(await statuses(store)).toEqual([['r1', 'completed']]);
    expect((await store.getRun('r1'))?.text).toBe('Paid.');
  });

  it('should let one of two concurrent continuations win and give the other a RunConflictError', async () => {
    const { agent, store, paid } = createAgent();
    env.emu.script([payCall('c1'), answer('Paid once.')]);
    const paused = (await agent.run('Pay it', { runId: 'r2' })) as InterruptedRunResult;
    const results = await Promise.allSettled([
      agent.run(paused.state.clone().approve('c1'), { runId: 'r2' }),
      agent.run(paused.state.clone().approve('c1'), { runId: 'r2' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(RunConflictError);
    expect(paid).toEqual(['c1']);
    expect(await statuses(store)).toEqual([['r2', 'completed']]);
  });

  it('should start a new stored run when no paused run has that id', async () => {
    const { agent, store } = createAgent();
    env.emu.script([answer('Fresh.')]);
    const state = new RunState({ messages: [{ role: 'user', content: 'Hello' }] });
    const result = await agent.run(state, { runId: 'new-id' });
    expect(result).toMatchObject({ status: 'completed', runId: 'new-id' });
    expect(await statuses(store)).toEqual([['new-id', 'completed']]);
  });
});
