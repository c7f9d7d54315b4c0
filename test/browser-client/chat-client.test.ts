import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatRunLostError, createChatClient } from '../../src/browser-client/index.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

let server: HttpTestServer;
let reconnects = 0;

beforeAll(async () => {
  // A backend whose run stream ends without the run's last event, on every reconnect too; after 20
  // reconnects it gives up and sends `finish`, so a client that never gives up still ends.
  server = await createHttpTestServer((req, res) => {
    const sse = { 'content-type': 'text/event-stream', 'x-run-id': 'run-1', 'x-session-id': 's-1' };
    if (req.method === 'POST' && req.url === '/api/chat') {
      res.writeHead(200, sse).end('id: 0\ndata: {"type":"start"}\n\n');
      return;
    }
    if (req.method === 'GET' && req.url === '/api/runs/run-1/events') {
      reconnects++;
      res.writeHead(200, sse).end(reconnects > 20 ? 'id: 1\ndata: {"type":"finish"}\n\n' : '');
      return;
    }
    res.writeHead(404).end();
  });
});
afterAll(() => server.close());

describe('createChatClient', () => {
  describe('when the stream keeps ending without the run’s last event', () => {
    it('should give up with a ChatRunLostError after maxReconnects reconnections', async () => {
      const chat = createChatClient({ baseUrl: `${server.url}/api`, maxReconnects: 3, retryMs: 1 });
      const run = chat.send('Hi');
      const seen: string[] = [];
      const failure = await (async () => {
        for await (const event of run) seen.push(event.type);
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(seen).toEqual(['start']);
      expect(failure).toBeInstanceOf(ChatRunLostError);
      expect(failure).toMatchObject({ runId: 'run-1', lastEventId: '0', attempts: 3 });
      expect(reconnects).toBe(3);
    });
  });
});
