import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentOptionsError } from '../../src/agent/errors.js';
import { SvcClient } from '../../src/api/svc-client.js';

const client = new SvcClient({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9' });

describe('Agent options', () => {
  describe('when an option breaks a rule', () => {
    it.each([
      [{ model: '' }, 'model: required'],
      [{ maxTurns: 0 }, 'maxTurns: must be an integer >= 1'],
      [{ toolConcurrency: 1.5 }, 'toolConcurrency: must be an integer >= 1'],
      [{ modelSettings: { n: 2 } }, 'modelSettings.n'],
      [{ modelSettings: { response_format: { type: 'json_object' } } }, 'modelSettings.response_format'],
    ])('should throw AgentOptionsError naming the field (%o)', (overrides, message) => {
      const create = () => new Agent({ client, model: 'svc-3.5-flash', ...(overrides as object) });
      expect(create).toThrow(AgentOptionsError);
      expect(create).toThrow(message);
    });

    it('should reject a bad per-run maxTurns before any request', async () => {
      const agent = new Agent({ client, model: 'svc-3.5-flash' });
      await expect(agent.run('x', { maxTurns: -1 })).rejects.toThrow(/maxTurns: must be an integer >= 1/);
    });

    it('should reject an input that is not a string, messages or a RunState', async () => {
      const agent = new Agent({ client, model: 'svc-3.5-flash' });
      await expect(agent.run(42 as never)).rejects.toThrow(AgentOptionsError);
    });
  });
});
