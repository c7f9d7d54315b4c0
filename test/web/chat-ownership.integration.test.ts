import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ChatOwner } from '../../src/web/chat-owner.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { type OpenedSharedState, sharedStateBackends } from '../helpers/shared-state-backends.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/** Every `delete_record` that ran, with the owner its tool was built for. */
const deleted: Array<{ owner: string; id: string }> = [];
/** What the agent factory was told, one entry per run. */
const factoryCalls: Array<{ sessionId: string; owner: ChatOwner | undefined }> = [];

function agentFor({ sessionId, owner }: { sessionId: string; owner: ChatOwner | undefined }) {
  factoryCalls.push({ sessionId, owner });
  // The app scopes its tools to the owner: the tool only ever reaches this user's records.
  const deleteRecord = defineTool({
    name: 'delete_record',
    description: 'Deletes one of your records',
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: ({ id }) => {
      deleted.push({ owner: owner?.userId ?? '', id });
      return { deleted: id };
    },
  });
  return new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [deleteRecord] });
}

function call(id: string, name: string, args: object) {
  return {
    message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
  };
}

async function startServer(store: Store): Promise<{ url: string; close(): Promise<void> }> {
  const handler: ChatHandler = createChatHandler({
    agent: agentFor,
    store,
    recheckMs: 100,
    sse: { heartbeatMs: 0 },
    authorize: (request) => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
      return token === 'alice-token'
        ? { userId: 'alice' }
        : token === 'bob-token'
          ? { userId: 'bob' }
          : false;
    },
  });
  const server: Server = createServer((req, res) => void handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A user's calls: JSON bodies, their token. */
function as(token: string, base: () => string) {
  return (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${base()}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
}

const uiUser = (text: string) => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
const uiApproval = (toolCallId: string) => ({
  id: 'a1',
  role: 'assistant',
  parts: [
    {
      type: 'tool-delete_record',
      toolCallId,
      state: 'approval-responded',
      input: { id: 'r1' },
      approval: { id: toolCallId, approved: true },
    },
  ],
});

const backends = sharedStateBackends.filter((backend) => backend.name !== 'fileStore');

for (const backend of backends) {
  for (const topology of ['one server', 'two servers'] as const) {
    describe.skipIf(!backend.available)(`chat ownership on ${backend.name}, ${topology}`, () => {
      let opened: OpenedSharedState;
      let servers: Array<{ url: string; close(): Promise<void> }> = [];
      const alice = as('alice-token', () => servers[0]!.url);
      const bob = as('bob-token', () => servers.at(-1)!.url);

      beforeAll(async () => {
        opened = await backend.open({});
        servers = [await startServer(opened.a)];
        if (topology === 'two servers') servers.push(await startServer(opened.b));
      });

      afterAll(async () => {
        await Promise.all(servers.map((server) => server.close()));
        await opened.cleanup();
      });

      it("should answer 404 to every route Bob calls with Alice's ids, and act on nothing of hers", async () => {
        deleted.length = 0;
        factoryCalls.length = 0;
        // Alice's JSON chat pauses on an approval; her useChat chat has one finished exchange.
        env.emu.script([
          call('c1', 'delete_record', { id: 'r1' }),
          { message: { content: 'Hello Alice' } },
          { message: { content: 'Hello Bob' } },
          { message: { content: 'Deleted r1.' } },
        ]);
        const paused = await alice('/chat', { body: { message: 'Delete r1', sessionId: 'team' } });
        expect(paused.status).toBe(200);
        await paused.text();
        const runId = paused.headers.get('x-run-id')!;
        expect(paused.headers.get('x-session-id')).toBe('team');
        const ui = await alice('/ui', { body: { id: 'notes', messages: [uiUser('Hi')] } });
        expect(ui.status).toBe(200);
        expect(await ui.text()).toContain('Hello Alice');
        const sessionBefore = await (await alice('/sessions/team')).json();
        const notesBefore = await (await alice('/ui/notes/messages')).json();
        const requestsBefore = chatRequests(env.emu).length;

        // Bob, with his own valid token and Alice's ids.
        const statuses = {
          session: (await bob('/sessions/team')).status,
          events: (await bob(`/runs/${runId}/events`)).status,
          approve: (
            await bob(`/runs/${runId}/approvals`, {
              body: { decisions: [{ toolCallId: 'c1', approved: true }] },
            })
          ).status,
          stop: (await bob(`/runs/${runId}/stop`, { method: 'POST' })).status,
          uiStream: (await bob('/ui/team/stream')).status,
          uiApprove: (
            await bob('/ui', { body: { id: 'team', messages: [uiUser('Delete r1'), uiApproval('c1')] } })
          ).status,
          regenerate: (
            await bob('/ui', {
              body: { id: 'notes', trigger: 'regenerate-message', messages: [uiUser('Hi')] },
            })
          ).status,
        };
        expect(statuses).toEqual({
          session: 404,
          events: 404,
          approve: 404,
          stop: 404,
          uiStream: 204,
          uiApprove: 404,
          regenerate: expect.any(Number),
        });
        expect(statuses.regenerate).toBeGreaterThanOrEqual(400);
        expect(await (await bob('/ui/notes/messages')).json()).toEqual([]);
        expect(await (await bob('/ui/team/messages')).json()).toEqual([]);
        expect(chatRequests(env.emu).length).toBe(requestsBefore);

        // Bob posting into "team" and "notes" talks in his own chats of those names.
        const bobChat = await bob('/chat', {
          body: { message: 'Hi', sessionId: 'team', rejectPending: true },
        });
        expect(await bobChat.text()).toContain('Hello Bob');
        expect(await (await bob('/sessions/team')).json()).toMatchObject({
          sessionId: 'team',
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello Bob' },
          ],
        });

        // Alice's state is as she left it: still paused, the tool never ran for Bob.
        expect(await (await alice('/sessions/team')).json()).toEqual(sessionBefore);
        expect(await (await alice('/ui/notes/messages')).json()).toEqual(notesBefore);
        expect(deleted).toEqual([]);
        const approved = await alice(`/runs/${runId}/approvals`, {
          body: { decisions: [{ toolCallId: 'c1', approved: true }] },
        });
        expect(approved.status).toBe(200);
        expect(await approved.text()).toContain('Deleted r1.');
        expect(deleted).toEqual([{ owner: 'alice', id: 'r1' }]);
        // The agent factory was told the owner and the session as its owner names it.
        expect(factoryCalls.map((c) => `${c.owner?.userId}:${c.sessionId}`)).toEqual([
          'alice:team',
          'alice:notes',
          'bob:team',
          'alice:team',
        ]);
      });

      it('should make an unguessable session id when the client names none', async () => {
        env.emu.script([{ message: { content: 'One' } }, { message: { content: 'Two' } }]);
        const first = await alice('/chat', { body: { message: 'Hi' } });
        await first.text();
        const second = await alice('/chat', { body: { message: 'Hi' } });
        await second.text();
        const ids = [first, second].map((r) => r.headers.get('x-session-id'));
        for (const id of ids)
          expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(ids[0]).not.toBe(ids[1]);
        expect((await bob(`/sessions/${ids[0]}`)).status).toBe(404);
      });

      it('should refuse a request authorize turns down, before any run', async () => {
        const refused = await as('mallory', () => servers[0]!.url)('/chat', { body: { message: 'Hi' } });
        expect(refused.status).toBe(401);
      });
    });
  }
}
