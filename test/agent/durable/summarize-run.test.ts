import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import type { RunRecord } from '../../../src/agent/durable/store.js';
import { runSearchText, summarizeRun } from '../../../src/agent/durable/summarize-run.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { answer } from '../../helpers/tool-turn.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

function createRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    agentName: 'support',
    status: 'completed',
    state: { messages: [] },
    interruptions: [],
    version: 3,
    createdAt: 1_000,
    updatedAt: 4_500,
    ...overrides,
  };
}

const step = (model: string, usage: Record<string, number>, fallback?: string) => ({
  index: 0,
  model,
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, ...usage },
  ...(fallback && { fallback: { model: fallback, failed: [{ model, reason: 'status 503' }] } }),
});

describe('summarizeRun', () => {
  describe('when a run was answered by the service', () => {
    it('should take the model, tokens, title and session from the stored record', async () => {
      const store = memoryStore();
      env.emu.script([answer('Hello there.')]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', store });
      await agent.run('  Summarise my week  ', { runId: 'run-e', session: 's-9' });
      const summary = summarizeRun((await store.getRun('run-e'))!);
      expect(summary).toMatchObject({
        id: 'run-e',
        agentName: 'agent',
        status: 'completed',
        sessionId: 's-9',
        model: 'svc-3.5-flash',
        steps: 1,
        title: 'Summarise my week',
      });
      expect(summary.tokens.total).toBeGreaterThan(0);
      expect(summary.tokens.total).toBe(summary.tokens.input + summary.tokens.output);
      expect(summary).not.toHaveProperty('costUsd');
    });
  });

  describe('when a fallback model answered the last step', () => {
    it('should name the fallback model', () => {
      const record = createRecord({ state: { steps: [step('svc-3.5', {}, 'svc-mini')] } });
      expect(summarizeRun(record).model).toBe('svc-mini');
    });
  });

  describe('when the state carries no cost', () => {
    it('should price its steps from a price table, cached tokens at the cached price', () => {
      const usage = { promptTokens: 1_000_000, cachedTokens: 500_000, completionTokens: 1_000_000 };
      const record = createRecord({ state: { steps: [step('svc-3.5', usage)] } });
      const prices = { 'svc-3.5': { input: 2, cachedInput: 1, output: 10 } };
      expect(summarizeRun(record, { prices }).costUsd).toBe(1 + 0.5 + 10);
      expect(summarizeRun(record, { prices: { other: { input: 1, output: 1 } } })).not.toHaveProperty(
        'costUsd',
      );
    });
  });

  describe('when the run has an owner or a tenant', () => {
    it('should name the queue tenant first, else the web owner of its session', () => {
      const owned = `u~${'0f'.repeat(16)}`;
      const session = { id: `${owned}~chat-1`, start: 0, appended: 0 };
      expect(summarizeRun(createRecord({ session })).tenant).toBe(owned);
      expect(summarizeRun(createRecord({ session, tenant: 'acme' })).tenant).toBe('acme');
      expect(summarizeRun(createRecord({ session: { ...session, id: 'plain' } }))).not.toHaveProperty(
        'tenant',
      );
    });
  });

  describe('when the run continues a session', () => {
    it('should title it by its own input, not the history before it', () => {
      const record = createRecord({
        state: {
          messages: [
            { role: 'user', content: 'old question' },
            { role: 'user', content: 'new one' },
          ],
        },
        session: { id: 's', start: 1, appended: 1, input: [{ role: 'user', content: 'new one' }] },
      });
      expect(summarizeRun(record).title).toBe('new one');
    });

    it('should cut the title at 200 characters and read text parts', () => {
      const long = 'x'.repeat(300);
      const record = createRecord({
        state: { messages: [{ role: 'user', content: [{ type: 'text', text: long }] }] },
      });
      expect(summarizeRun(record).title).toBe('x'.repeat(200));
    });
  });

  describe('when its text is searched', () => {
    it('should keep every message and the final answer, lower-cased', () => {
      const record = createRecord({
        state: {
          messages: [
            { role: 'system', content: 'Be BRIEF' },
            { role: 'user', content: [{ type: 'text', text: 'Find PARCEL' }, { type: 'image_url' }] },
          ],
        },
        text: 'Found It',
      });
      expect(runSearchText(record)).toBe('be brief\nfind parcel\nfound it\n');
    });
  });
});
