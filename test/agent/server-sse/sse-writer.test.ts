import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { SseFrame } from '../../../src/agent/server-sse/sse-frame.js';
import { toSseResponse } from '../../../src/agent/server-sse/sse-writer.js';
import { handleNodeRequest } from '../../../src/web/handle-node-request.js';

/** Frames 0..total-1 of `size` characters each, counting how many the writer took. */
function countedFrames(total: number, size = 100) {
  const counter = { taken: 0 };
  async function* frames(): AsyncGenerator<SseFrame> {
    for (let id = 0; id < total; id++) {
      counter.taken++;
      yield { id: String(id), data: 'x'.repeat(size) };
    }
  }
  return { counter, frames: frames() };
}

/** Lets the event loop turn `rounds` times: whatever a writer would do without a reader, it has done. */
async function turns(rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) await new Promise((resolve) => setImmediate(resolve));
}

describe('toSseResponse', () => {
  describe('when the client stops reading', () => {
    it('should take about one frame ahead of it from the source, not the whole log', async () => {
      const { counter, frames } = countedFrames(10_000);
      const response = toSseResponse({ frames }, { heartbeatMs: 0, retryMs: 0 });
      const reader = response.body!.getReader();
      await reader.read();
      await turns(50);
      expect(counter.taken).toBeLessThanOrEqual(3);
      await reader.read();
      await reader.read();
      await turns(50);
      expect(counter.taken).toBeLessThanOrEqual(5);
      await reader.cancel();
    });

    it('should still deliver every frame, in order, to a client that reads them all', async () => {
      const { frames } = countedFrames(2_000, 10);
      const text = await toSseResponse({ frames }, { heartbeatMs: 0, retryMs: 0 }).text();
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
      expect(ids).toEqual(Array.from({ length: 2_000 }, (_, index) => index));
    });
  });
});

describe('handleNodeRequest', () => {
  describe('when a long body waits for the client many times', () => {
    it('should leave no close or drain listener behind per wait', async () => {
      const counts: number[] = [];
      const server = createServer((req, res) => {
        const { frames } = countedFrames(300, 64 * 1024);
        res.on('finish', () => counts.push(res.listenerCount('close'), res.listenerCount('drain')));
        void handleNodeRequest(async () => toSseResponse({ frames }, { heartbeatMs: 0 }), req, res, {});
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const body = await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
      expect(body.byteLength).toBeGreaterThan(300 * 64 * 1024);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      expect(counts).toHaveLength(2);
      expect(counts[0]).toBeLessThanOrEqual(3);
      expect(counts[1]).toBeLessThanOrEqual(1);
    });
  });
});
