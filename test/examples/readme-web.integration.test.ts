/**
 * The README's "Chatbots on the web" section, run for real: each `// #region name` is copied verbatim into
 * README.md (test/examples/readme.test.ts checks they match).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readUIMessageStream, type UIMessage, uiMessageChunkSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createChatClient } from '../../src/browser-client/index.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { Agent, defineTool, SvcClient } from '../../src/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { createChatHandler, toUIMessageStreamResponse } from '../../src/web/index.js';

describe('README web section', () => {
  let service: Emulator;
  let client: SvcClient;
  let agent: Agent;
  const servers: Server[] = [];

  beforeAll(async () => {
    service = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL });
    agent = new Agent({ client, model: 'svc-3.5-flash' });
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await client.close();
    await service.close();
  });

  async function listen(server: Server) {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('should answer a fetch-style route with our events as SSE', async () => {
    // #region web-to-response
    // app/api/agent/route.ts (Next.js), a Hono or Bun handler: any runtime with Web Request/Response
    async function POST(request: Request): Promise<Response> {
      const { message } = (await request.json()) as { message: string };
      return agent.stream(message).toResponse(); // text/event-stream, one AgentEvent per event
    }
    // #endregion
    const response = await POST(new Request('http://x/', { method: 'POST', body: '{"message":"Hi"}' }));
    expect(await response.text()).toContain('"type":"finish"');
  });

  it('should pipe our events into a Node response', async () => {
    // #region web-pipe-to
    const server = createServer(async (req, res) => {
      const message = new URL(req.url ?? '/', 'http://localhost').searchParams.get('q') ?? 'Hello';
      await agent.stream(message).pipeTo(res); // the run is aborted if the client goes away
    });
    // #endregion
    const base = await listen(server);
    expect(await (await fetch(`${base}/?q=Hi`)).text()).toContain('"type":"text-delta"');
  });

  it('should serve useChat with the AI SDK UI message stream', async () => {
    // #region web-use-chat
    // The backend of a `useChat()` front end (@ai-sdk/react), unchanged
    async function POST(request: Request): Promise<Response> {
      const { messages } = (await request.json()) as { messages: UIMessage[] };
      const last = messages.at(-1)?.parts.find((part) => part.type === 'text');
      return toUIMessageStreamResponse(agent.stream(last?.type === 'text' ? last.text : ''));
    }
    // #endregion
    const body = JSON.stringify({
      messages: [{ id: '1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    });
    const response = await POST(new Request('http://x/', { method: 'POST', body }));
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = (await response.text())
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice(6)));
    const schema = await uiMessageChunkSchema().validate?.(chunks[0]);
    expect(schema?.success).toBe(true);
    let last: UIMessage | undefined;
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    for await (const message of readUIMessageStream<UIMessage>({ stream })) last = message;
    expect(last?.parts.some((part) => part.type === 'text')).toBe(true);
  });

  it('should run a chat backend with sessions, approvals and reconnects, and its browser client', async () => {
    // #region web-chat-handler
    // Server: POST /api/chat, POST /api/runs/:id/approvals, GET /api/runs/:id/events, GET /api/sessions/:id
    const chat = createChatHandler({ agent }); // in memory; pass `store` to keep sessions elsewhere
    const server = createServer((req, res) => chat.node(req, res)); // or `fetch: chat.fetch` on Web runtimes
    // #endregion
    const base = await listen(server);
    const baseUrl = `${base}/api`;
    // #region web-client
    // Browser (no dependencies): import { createChatClient } from 'svc-agents/client';
    const client = createChatClient({ baseUrl });
    const run = client.send('Hello!', { sessionId: 'demo-session' });
    for await (const event of run) {
      if (event.type === 'text-delta') console.log(event.text); // reconnects with Last-Event-ID on its own
      if (event.type === 'tool-approval-request') {
        // once the run has ended: client.decide(await run.runId, [{ toolCallId, approved: true }])
      }
    }
    // #endregion
    expect(await run.sessionId).toBe('demo-session');
    chat.close();
  });

  it('should refuse what the authorize hook refuses, before reading the body', async () => {
    const sessionToken = 'token-of-this-user';
    // #region web-chat-authorize
    const chat = createChatHandler({
      agent,
      // Runs before the body is read: true lets the request in, false answers 401, a Response is sent as is.
      authorize: (request) => request.headers.get('authorization') === `Bearer ${sessionToken}`,
      maxBodyBytes: 1024 * 1024, // larger bodies get 413 (default 4 MiB)
    });
    // #endregion
    const base = await listen(createServer((req, res) => chat.node(req, res)));
    const body = JSON.stringify({ message: 'Hello!' });
    const refused = await fetch(`${base}/api/chat`, { method: 'POST', body });
    expect(refused.status).toBe(401);
    const allowed = await fetch(`${base}/api/chat`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(allowed.status).toBe(200);
    await allowed.text();
    chat.close();
  });
  it("should keep each user's chats to that user", async () => {
    const users: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' };
    const notesOf = (userId: string) => [`${userId}'s first note`];
    // #region web-chat-owners
    const chat = createChatHandler({
      // Who the request acts for: every session and run it makes is that user's, and another user's ids
      // answer 404 on every route. (`true` admits an anonymous caller, `false` answers 401.)
      authorize: (request) => {
        const userId = users[request.headers.get('authorization')?.replace('Bearer ', '') ?? ''];
        return userId ? { userId } : false;
      },
      // The factory is told the owner: give the agent tools that reach only that user's data.
      agent: ({ owner }) =>
        new Agent({
          client,
          model: 'svc-3.5-flash',
          tools: [
            defineTool({
              name: 'list_notes',
              description: "Lists the user's notes",
              parameters: z.object({}),
              execute: () => notesOf(owner!.userId),
            }),
          ],
        }),
    });
    // #endregion
    const base = await listen(createServer((req, res) => chat.node(req, res)));
    const as = (token: string) =>
      createChatClient({ baseUrl: `${base}/api`, headers: { authorization: `Bearer ${token}` } });
    const run = as('alice-token').send('Hello!', { sessionId: 'notes' });
    for await (const _event of run);
    expect((await as('alice-token').session('notes')).messages).toHaveLength(2);
    // Bob names the same session and Alice's run: neither exists for him.
    await expect(as('bob-token').session('notes')).rejects.toMatchObject({ status: 404 });
    await expect(as('bob-token').stop(await run.runId)).rejects.toMatchObject({ status: 404 });
    await chat.close();
  });
  it('should keep every state of the chat in the store the servers share', async () => {
    // #region web-chat-shared
    // Every server behind the load balancer gets the same store: redisStore or postgresStore in production.
    const store = memoryStore(); // one process only: at most 1,000 sessions and runs, least recently used go
    const chat = createChatHandler({ agent, store });
    // POST /api/runs/:id/stop stops a run on whichever server runs it; GET /api/sessions/:id tells the
    // run in progress and the pending approvals; GET /api/runs/:id/events replays from the store's log.
    // #endregion
    const base = await listen(createServer((req, res) => chat.node(req, res)));
    const run = createChatClient({ baseUrl: `${base}/api` }).send('Hello!', { sessionId: 'shared' });
    for await (const _event of run);
    expect(await store.getItems('shared')).toHaveLength(2);
    await chat.close();
  });
});
