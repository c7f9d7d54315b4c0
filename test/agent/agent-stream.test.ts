import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('AgentStream', () => {
  describe('when listeners are attached right after agent.stream()', () => {
    it('should deliver every event to typed listeners and to `event`, in the iteration order', async () => {
      env.emu.script([{ message: { content: 'Hi there' } }]);
      const stream = new Agent({ client: env.client, model: 'svc-3.5-flash' }).stream('hello');
      const all: string[] = [];
      const texts: string[] = [];
      stream.on('event', (event) => all.push(event.type));
      stream.on('text-delta', (event) => texts.push(event.text));
      const iterated: AgentEvent[] = [];
      for await (const event of stream) iterated.push(event);
      expect(all).toEqual(iterated.map((event) => event.type));
      expect(all[0]).toBe('start');
      expect(texts.join('')).toBe('Hi there');
      expect((await stream.result).text).toBe('Hi there');
    });
  });

  describe('when iterated twice', () => {
    it('should refuse the second iteration', async () => {
      env.emu.script([{ message: { content: 'x' } }]);
      const stream = new Agent({ client: env.client, model: 'svc-3.5-flash' }).stream('hello');
      for await (const _ of stream) {
        // drain
      }
      expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
    });
  });
});
