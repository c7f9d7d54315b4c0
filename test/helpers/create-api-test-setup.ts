import type { IncomingMessage, ServerResponse } from 'node:http';
import { SvcClient, type SvcClientOptions } from '../../src/api/svc-client.js';
import type { ChatCompletion } from '../../src/api/types/chat.js';
import {
  createHttpTestServer,
  type HttpTestServer,
  type ReceivedRequest,
} from './create-http-test-server.js';

/** The key every API test uses; tests assert it never leaks. */
export const testApiKey = 'sk-test-0123456789abcdef';

/** A minimal non-streamed answer ("Hello!") for a fixture server to reply with. */
export const helloCompletion: ChatCompletion = {
  id: 'cmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'svc-3.5-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
};

/** A test server plus a client pointed at it. */
export interface ApiTestSetup {
  server: HttpTestServer;
  client: SvcClient;
  /** The single request the server received (fails if there was not exactly one). */
  onlyRequest(): ReceivedRequest;
  /** Answers every request with `status` and `body` as JSON. */
  replyJson(body: unknown, status?: number): void;
  close(): Promise<void>;
}

/** Starts a local server and a client with `maxRetries: 0` (unless overridden) pointed at it. */
export async function createApiTestSetup(overrides: SvcClientOptions = {}): Promise<ApiTestSetup> {
  const server = await createHttpTestServer();
  const client = new SvcClient({ apiKey: testApiKey, baseURL: server.url, maxRetries: 0, ...overrides });
  return {
    server,
    client,
    onlyRequest() {
      if (server.requests.length !== 1) {
        throw new Error(`expected exactly one request, the server saw ${server.requests.length}`);
      }
      return server.requests[0]!;
    },
    replyJson(body, status = 200) {
      server.setHandler((_req, res) => sendJson(res, body, status));
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Writes `body` as a JSON response. */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-trace-id': 'trace-123' });
  res.end(JSON.stringify(body));
}

/** Writes `events` as a server-sent-event stream ending with `data: [DONE]`. */
export function sendSse(res: ServerResponse, events: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-trace-id': 'trace-sse' });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** The JSON body of a received request. */
export function jsonBody(request: ReceivedRequest): unknown {
  return JSON.parse(request.body.toString('utf8'));
}

/** Path and query of a request URL as a URL object. */
export function requestUrl(request: ReceivedRequest | IncomingMessage): URL {
  return new URL(request.url ?? '', 'http://127.0.0.1');
}
