import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { BudgetLease, RequestBudget } from '../../src/agent/request-budget.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { Usage } from '../../src/api/types/chat.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

/** A budget that admits everything and writes down what each lease was told. */
function createRecordingBudget() {
  const log: Array<{
    model: string;
    rateLimited: Array<number | undefined>;
    settled: Array<Usage | undefined>;
  }> = [];
  const budget: RequestBudget = {
    async acquire({ params }) {
      const entry = {
        model: params.model,
        rateLimited: [] as Array<number | undefined>,
        settled: [] as Array<Usage | undefined>,
      };
      log.push(entry);
      const lease: BudgetLease = {
        rateLimited: (ms) => entry.rateLimited.push(ms),
        settle: (usage) => entry.settled.push(usage),
      };
      return lease;
    },
  };
  return { budget, log };
}

describe('requestBudget', () => {
  const env = useAgentTestEnv();

  describe('when a run has a budget', () => {
    it('should acquire before each model request and settle it with the real usage', async () => {
      const { budget, log } = createRecordingBudget();
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      const result = await agent.run('Say hello', { requestBudget: budget });
      expect(log).toHaveLength(1);
      expect(log[0]?.model).toBe('svc-3.5-flash');
      expect(log[0]?.settled).toHaveLength(1);
      expect(log[0]?.settled[0]?.total_tokens).toBe(result.usage.totalTokens);
    });

    it('should settle a streamed request when its stream ends', async () => {
      const { budget, log } = createRecordingBudget();
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      const result = await agent.stream('Say hello', { requestBudget: budget }).result;
      await new Promise((resolve) => setImmediate(resolve));
      expect(log[0]?.settled[0]?.total_tokens).toBe(result.usage.totalTokens);
    });

    it('should report each rate-limited attempt with its Retry-After, the client retries included', async () => {
      env.emu.setFaults([
        { status: 429, headers: { 'retry-after-ms': '30' }, path: '/chat/completions', times: 2 },
      ]);
      const client = new SvcClient({ apiKey: env.emu.apiKey, baseURL: env.emu.baseURL, maxRetries: 1 });
      const { budget, log } = createRecordingBudget();
      const agent = new Agent({ client, model: 'svc-3.5-flash' });
      await expect(agent.run('Say hello', { requestBudget: budget })).rejects.toMatchObject({ status: 429 });
      // One retry by the client, then the error: both 429s pause the model, and the lease ends unsettled.
      expect(log).toEqual([{ model: 'svc-3.5-flash', rateLimited: [30, 30], settled: [undefined] }]);
      await client.close();
    });

    it('should take a budget per model a fallback moves the turn to', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash', status: 500 }]);
      const { budget, log } = createRecordingBudget();
      const agent = new Agent({ client: env.client, model: ['svc-3.5-flash', 'svc-3.7-flash'] });
      await agent.run('Say hello', { requestBudget: budget });
      expect(log.map((entry) => entry.model)).toEqual(['svc-3.5-flash', 'svc-3.7-flash']);
    });
  });
});
