import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { createEventBus } from '../../src/queue/event-bus.js';
import { normalizeConnection } from '../../src/queue/queue-connection.js';
import { createFailingSubAgentsRun } from '../helpers/create-failing-sub-agents-run.js';
import { queueBackends } from '../helpers/queue-backends.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/** The events of a run whose two sub-agents fail with the API key in their errors' messages. */
async function subAgentFailureEvents(): Promise<AgentEvent[]> {
  const parent = createFailingSubAgentsRun(env);
  const events: AgentEvent[] = [];
  for await (const event of parent.stream('go')) events.push(event);
  return events;
}

for (const backend of queueBackends) {
  describe.skipIf(!backend.available)(`the event bus on ${backend.name}`, () => {
    describe('when sub-agents fail', () => {
      it('should carry their nested errors as name and message, with the API key masked', async () => {
        const events = await subAgentFailureEvents();
        const nested = events.filter((event) => event.type === 'sub-agent');
        const ns = backend.create();
        const bus = createEventBus(normalizeConnection(ns.connection), ns.queueName);
        try {
          const received: unknown[] = [];
          const done = new Promise<void>((resolve) => {
            void bus
              .subscribe('run-1', (event) => {
                received.push(event);
                if (received.length === nested.length) resolve();
              })
              .then(async () => {
                for (const event of nested) await bus.publish('run-1', event);
              });
          });
          await done;
          expect(JSON.stringify(received)).not.toContain(env.emu.apiKey);
          const errors = received.flatMap((event) => {
            const { agent, event: inner } = event as { agent: string; event: { type: string } };
            return inner.type === 'error' ? [[agent, inner]] : [];
          });
          expect(errors).toEqual([
            [
              'plain',
              { type: 'error', error: { name: 'Error', message: 'tool registry refused token=[redacted]' } },
            ],
            [
              'typed',
              {
                type: 'error',
                error: { name: 'SvcError', message: 'tool registry refused api_key=[redacted]' },
              },
            ],
          ]);
        } finally {
          await bus.close();
          await ns.cleanup();
        }
      });
    });
  });
}
