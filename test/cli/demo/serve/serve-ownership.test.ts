import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../../../src/api/svc-client.js';
import { createServeAgent, type ServeAgentContext } from '../../../../src/cli/demo/serve/serve-agent.js';
import { type ChatServer, startChatServer } from '../../../../src/cli/demo/serve/start-chat-server.js';
import { startEmulator } from '../../../../src/emulator/index.js';
import type { Emulator } from '../../../../src/emulator/types.js';

let emu: Emulator;
let client: SvcClient;
let server: ChatServer;
const built: ServeAgentContext[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
  const agent = createServeAgent({ model: 'svc-3.5-flash', tools: [], instructions: 'Answer briefly.' });
  server = await startChatServer({
    client,
    port: 0,
    agent: (context) => {
      built.push(context);
      return agent(context);
    },
    authorize: (request) => {
      const token = request.headers.get('authorization');
      return token === 'Bearer a' ? { userId: 'alice' } : token === 'Bearer b' ? { userId: 'bob' } : false;
    },
  });
});

afterAll(async () => {
  await server?.close();
  await client?.close();
  await emu?.close();
});

const as =
  (token: string) =>
  (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });

describe('startChatServer with authorize', () => {
  describe('when two users upload into and chat in a session of the same name', () => {
    it("should give each their own knowledge base, and neither the other's session", async () => {
      const upload = async (token: string, text: string) => {
        const answer = await as(token)('/api/files?sessionId=notes&name=notes.txt', {
          method: 'POST',
          body: text,
        });
        expect(answer.status).toBe(200);
        return ((await answer.json()) as { knowledgeBaseId: string }).knowledgeBaseId;
      };
      const alices = await upload('a', "Alice's private notes");
      const bobs = await upload('b', "Bob's notes");
      expect(bobs).not.toBe(alices);
      expect(
        (await as('c')('/api/files?sessionId=notes&name=x.txt', { method: 'POST', body: 'x' })).status,
      ).toBe(401);

      emu.script([{ message: { content: 'Hi Alice' } }]);
      const chat = await as('a')('/api/chat', {
        method: 'POST',
        body: JSON.stringify({ message: 'Hi', sessionId: 'notes' }),
      });
      await chat.text();
      expect(built.at(-1)).toMatchObject({
        sessionId: 'notes',
        owner: { userId: 'alice' },
        knowledgeBaseId: alices,
      });
      expect((await as('b')('/api/sessions/notes')).status).toBe(404);

      emu.script([{ message: { content: 'Hi Bob' } }]);
      const bobChat = await as('b')('/api/chat', {
        method: 'POST',
        body: JSON.stringify({ message: 'Hi', sessionId: 'notes' }),
      });
      await bobChat.text();
      expect(built.at(-1)).toMatchObject({
        sessionId: 'notes',
        owner: { userId: 'bob' },
        knowledgeBaseId: bobs,
      });
    });
  });
});
