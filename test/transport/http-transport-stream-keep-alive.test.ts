import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/transport/http-transport.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';

let server: HttpTestServer;
let transport: HttpTransport;
let connections: number;

beforeEach(async () => {
  server = await createHttpTestServer();
  connections = 0;
  server.server.on('connection', (_socket: Socket) => {
    connections++;
  });
  transport = new HttpTransport({ apiKey: 'sk-keep-alive-secret', baseURL: server.url, maxRetries: 0 });
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

describe('HttpTransport.stream keep-alive', () => {
  describe('when the server ends the response a few ms after [DONE]', () => {
    it('should drain the rest and reuse one socket for 10 streams in sequence', async () => {
      server.setHandler(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\ndata: [DONE]\n\n');
        // The body's end arrives after its last event, as a real server's does.
        await sleep(5);
        res.end();
      });
      for (let i = 0; i < 10; i++) {
        const response = await transport.stream({ method: 'POST', path: '/v1/chat/completions', body: {} });
        const events: string[] = [];
        for await (const event of response.events) events.push(event);
        expect(events).toEqual(['{"n":1}']);
        // Let the end of the body arrive, as between turns of an agent; without the drain the socket is gone.
        await sleep(20);
      }
      expect(server.requests).toHaveLength(10);
      expect(connections).toBeLessThanOrEqual(2);
    });
  });
});
