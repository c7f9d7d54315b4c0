import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { AgentOptionsError } from '../../../src/agent/errors.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

describe('model fallback', () => {
  const env = useAgentTestEnv();
  const modelsSent = () => chatRequests(env.emu).map((body) => body.model);

  describe('when the agent model is overloaded', () => {
    it('should answer the turn on the next model, in the step and as an event', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash-2603', status: 503 }]);
      const agent = createTestAgent(env, { model: ['svc-3.5-flash-2603', 'svc-3.7-flash'] });
      const events: AgentEvent[] = [];
      const result = await agent.run('Say hello', { onEvent: (event) => events.push(event) });
      expect(result.status).toBe('completed');
      expect(modelsSent()).toEqual(['svc-3.5-flash-2603', 'svc-3.7-flash']);
      expect(result.steps[0]?.fallback).toEqual({
        model: 'svc-3.7-flash',
        failed: [{ model: 'svc-3.5-flash-2603', reason: 'status 503' }],
      });
      expect(events.filter((event) => event.type === 'model-fallback')).toEqual([
        {
          type: 'model-fallback',
          step: 0,
          from: 'svc-3.5-flash-2603',
          to: 'svc-3.7-flash',
          reason: 'status 503',
        },
      ]);
      // The saved state keeps it: a resumed run still shows which model answered.
      expect(result.state.toJSON()).toMatchObject({ steps: [{ fallback: { model: 'svc-3.7-flash' } }] });
    });

    it('should fall back on a stream that failed before it began, too', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash', status: 429 }]);
      const agent = createTestAgent(env, { fallbackModels: ['svc-3.7-flash'] });
      const result = await agent.stream('Say hello').result;
      expect(result.steps[0]?.fallback?.failed).toEqual([{ model: 'svc-3.5-flash', reason: 'status 429' }]);
      expect(result.text).not.toBe('');
    });
  });

  describe('when a fallback model cannot serve the request', () => {
    it('should skip it for the next one that supports the features (json_schema)', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash-2603', status: 500 }]);
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash-2603',
        fallbackModels: ['svc-3.7-flash', 'svc-3.5-flash'],
        output: z.object({ city: z.string() }),
      });
      const result = await agent.run('Name a city');
      expect(modelsSent()).toEqual(['svc-3.5-flash-2603', 'svc-3.5-flash']);
      expect(result.steps[0]?.fallback?.model).toBe('svc-3.5-flash');
    });

    it('should throw the overload when no fallback model fits', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash', status: 503 }]);
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        fallbackModels: ['svc-3.7-flash'],
        output: z.object({ city: z.string() }),
      });
      await expect(agent.run('Name a city')).rejects.toMatchObject({ status: 503 });
      expect(modelsSent()).toEqual(['svc-3.5-flash']);
    });
  });

  describe('when the failure is not an overload', () => {
    it('should not move the turn', async () => {
      env.emu.setFaults([{ model: 'svc-3.5-flash', status: 402 }]);
      const agent = createTestAgent(env, { fallbackModels: ['svc-3.7-flash'] });
      await expect(agent.run('Say hello')).rejects.toMatchObject({ status: 402 });
      expect(modelsSent()).toEqual(['svc-3.5-flash']);
    });
  });

  describe('when the model list is malformed', () => {
    it('should name the field and the rule before any request', () => {
      expect(() => createTestAgent(env, { model: [] as unknown as [string] })).toThrow(AgentOptionsError);
      expect(() => createTestAgent(env, { fallbackModels: [''] })).toThrow(
        /fallbackModels\[0\]: must be a model name/,
      );
    });
  });
});
