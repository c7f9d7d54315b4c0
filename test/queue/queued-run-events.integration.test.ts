import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { encodeRunEvent, followQueuedRun } from '../../src/queue/queued-run-events.js';
import { RunEventLogWriter } from '../../src/stores/run-event-log-writer.js';
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
  describe.skipIf(!backend.available)(`a queued run's events on ${backend.name}`, () => {
    describe('when sub-agents fail', () => {
      it('should carry their nested errors as name and message, with the API key masked', async () => {
        const events = await subAgentFailureEvents();
        const nested = events.filter((event) => event.type === 'sub-agent');
        const ns = backend.create();
        try {
          // Followed from before the run starts, written as a worker writes them. The writer starts once the
          // follower listens: on PostgreSQL the follower's first read and the writer's appends take different
          // pool connections, so sent first is not run first, and a read landing after the finish would
          // start the follower after it, waiting for a part that never comes.
          const received: unknown[] = [];
          let subscribed!: () => void;
          const listening = new Promise<void>((resolve) => {
            subscribed = resolve;
          });
          const store = new Proxy(ns.store, {
            get(target, key) {
              if (key === 'onSignal')
                return async (...args: Parameters<NonNullable<typeof target.onSignal>>) => {
                  const off = await target.onSignal!(...args);
                  subscribed();
                  return off;
                };
              const value = Reflect.get(target, key);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
          const following = (async () => {
            for await (const event of followQueuedRun(store, 'run-1')) received.push(event);
          })();
          await listening;
          const writer = new RunEventLogWriter(ns.store as never, 'run-1', { firstId: 0 });
          for (const event of nested) writer.push(encodeRunEvent(event));
          writer.push(encodeRunEvent({ type: 'finish', finishReason: 'stop' } as AgentEvent));
          await writer.close();
          await following;
          received.pop();
          expect(received).toHaveLength(nested.length);
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
          await ns.cleanup();
        }
      });
    });
  });
}
