import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory-store.js';
import { type ChatStateStore, chatKeys } from '../../src/web/chat-state.js';
import { relayRunEvents } from '../../src/web/relay-run-events.js';
import { withoutSignals } from '../helpers/without-signals.js';

async function collect(frames: AsyncIterable<{ id?: string; data: string }>) {
  const seen: Array<{ id: string | undefined; data: string }> = [];
  for await (const frame of frames) seen.push({ id: frame.id, data: frame.data });
  return seen;
}

const event = (n: number) => JSON.stringify({ type: 'text-delta', text: `t${n}` });

describe('relayRunEvents', () => {
  describe('when the signals are lost', () => {
    it('should still follow the log on its timer, from after Last-Event-ID to the end, each id once', async () => {
      const store = withoutSignals(memoryStore());
      await store.setValueIf(
        chatKeys.run('r1'),
        0,
        JSON.stringify({ sessionId: 's', agentRunId: 'r1', leaseUntil: Date.now() + 60_000 }),
      );
      await store.appendRunEvents('r1', 0, [event(0), event(1), event(2)]);
      const relayed = collect(relayRunEvents({ store, runId: 'r1', after: 0, recheckMs: 10 }));
      // Fixed waits on purpose: the relay must deliver without a signal, by its 10 ms recheck alone.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await store.appendRunEvents('r1', 3, [event(3)]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await store.appendRunEvents('r1', 4, [event(4)]);
      const { version } = await store.getValue(chatKeys.run('r1'));
      await store.setValueIf(
        chatKeys.run('r1'),
        version,
        JSON.stringify({ sessionId: 's', agentRunId: 'r1', outcome: 'completed' }),
      );
      expect((await relayed).map((frame) => frame.id)).toEqual(['1', '2', '3', '4']);
    });
  });

  describe('when the process running the run stopped renewing its lease', () => {
    it('should end the stream after what was stored', async () => {
      const store = memoryStore() as ChatStateStore;
      await store.setValueIf(
        chatKeys.run('r2'),
        0,
        JSON.stringify({ sessionId: 's', agentRunId: 'r2', leaseUntil: Date.now() - 1 }),
      );
      await store.appendRunEvents('r2', 0, [event(0)]);
      const frames = await collect(relayRunEvents({ store, runId: 'r2', recheckMs: 10 }));
      expect(frames).toEqual([{ id: '0', data: event(0) }]);
    });
  });
});
