import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import { cookieFetch } from './fixtures/cookie-fetch.js';

const env = useAgentTestEnv();

/** The plain state `useChat` keeps in React, here in an object: what AbstractChat needs to run. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** `useChat`'s engine without React. */
class TestChat extends AbstractChat<UIMessage> {
  readonly plain: PlainChatState;
  constructor(api: string, id: string) {
    const state = new PlainChatState();
    super({
      id,
      state,
      transport: new DefaultChatTransport({ api, fetch: cookieFetch() }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    this.plain = state;
  }
}

const reminder = defineTool({
  name: 'schedule_reminder',
  description: 'Schedules a reminder',
  parameters: z.object({ text: z.string() }),
  needsApproval: true,
  execute: ({ text }) => ({ scheduled: text }),
});

let server: Server | undefined;
let handler: ChatHandler | undefined;
afterEach(async () => {
  handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function start(
  agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [reminder] }),
  store?: Store,
) {
  handler = createChatHandler({ agent, ...(store && { store }) });
  const h = handler;
  server = createServer((req, res) => void h.node(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ui`;
}

const call = (id: string) => ({
  message: {
    content: '',
    tool_calls: [{ id, function: { name: 'schedule_reminder', arguments: '{"text":"water"}' } }],
  },
});
const textOf = (message: UIMessage | undefined) =>
  message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';

describe('createChatHandler POST /ui', () => {
  describe('when driven by the AI SDK chat (the engine of useChat)', () => {
    it('should answer, keep the conversation by chat id, and resume after an approval response', async () => {
      const api = await start();
      const chat = new TestChat(api, 'chat-7');
      env.emu.script([{ message: { content: 'Hello from svc-agents' } }]);
      await chat.sendMessage({ text: 'Hi' });
      expect(chat.plain.error).toBeUndefined();
      expect(textOf(chat.plain.messages.at(-1))).toBe('Hello from svc-agents');

      env.emu.script([call('c1'), { message: { content: 'Reminder set.' } }]);
      await chat.sendMessage({ text: 'Remind me to water the plants' });
      const asking = chat.plain.messages.at(-1)!;
      const part = asking.parts.find((p) => p.type === 'tool-schedule_reminder') as {
        state: string;
        approval?: { id: string };
      };
      expect(part.state).toBe('approval-requested');

      // The user approves in the UI; useChat sends the messages again by itself.
      await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
      await expect.poll(() => chat.plain.status, { timeout: 5_000 }).toBe('ready');
      const done = chat.plain.messages.at(-1)!;
      expect(chat.plain.error).toBeUndefined();
      expect(done.parts.find((p) => p.type === 'tool-schedule_reminder')).toMatchObject({
        state: 'output-available',
        output: { scheduled: 'water' },
      });
      expect(textOf(done)).toBe('Reminder set.');
      // The service saw one conversation, in order: the session is the chat id.
      const sent = chatRequests(env.emu).at(-1)?.messages as Array<{ role: string }>;
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    });

    it('should show a rejection as a denied tool part', async () => {
      const api = await start();
      const chat = new TestChat(api, 'chat-8');
      env.emu.script([call('c2'), { message: { content: 'Not scheduled.' } }]);
      await chat.sendMessage({ text: 'Remind me to water the plants' });
      const part = chat.plain.messages.at(-1)!.parts.find((p) => p.type === 'tool-schedule_reminder') as {
        approval?: { id: string };
      };
      await chat.addToolApprovalResponse({ id: part.approval!.id, approved: false, reason: 'not now' });
      await expect.poll(() => chat.plain.status, { timeout: 5_000 }).toBe('ready');
      const done = chat.plain.messages.at(-1)!;
      expect(done.parts.find((p) => p.type === 'tool-schedule_reminder')).toMatchObject({
        state: 'output-denied',
      });
      expect(textOf(done)).toBe('Not scheduled.');
    });
  });

  describe('when a sub-agent of an agent with a store asks for approval', () => {
    it('should show the inner call for approval, then its output, and complete the one stored run', async () => {
      const store = memoryStore();
      const helper = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        name: 'helper',
        tools: [reminder],
      });
      const api = await start(
        new Agent({
          client: env.client,
          model: 'svc-3.5-flash',
          store,
          tools: [helper.asTool({ name: 'ask_helper', description: 'Asks the helper' })],
        }),
        store,
      );
      const chat = new TestChat(api, 'chat-9');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'p1', function: { name: 'ask_helper', arguments: '{"input":"water"}' } }],
          },
        },
        call('s1'),
        { message: { content: 'Set.' } },
        { message: { content: 'The helper set your reminder.' } },
      ]);
      await chat.sendMessage({ text: 'Remind me to water the plants' });
      expect(chat.plain.error).toBeUndefined();
      const part = chat.plain.messages.at(-1)!.parts.find((p) => p.type === 'tool-schedule_reminder') as {
        toolCallId: string;
        state: string;
        approval?: { id: string };
      };
      expect(part).toMatchObject({ toolCallId: 's1', state: 'approval-requested' });

      await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
      await expect.poll(() => chat.plain.status, { timeout: 5_000 }).toBe('ready');
      expect(chat.plain.error).toBeUndefined();
      const done = chat.plain.messages.at(-1)!;
      expect(done.parts.find((p) => p.type === 'tool-schedule_reminder')).toMatchObject({
        state: 'output-available',
        output: { scheduled: 'water' },
      });
      expect(done.parts.find((p) => p.type === 'tool-ask_helper')).toMatchObject({
        state: 'output-available',
        output: 'Set.',
      });
      expect(textOf(done)).toBe('The helper set your reminder.');
      expect((await store.listRuns()).map((run) => run.status)).toEqual(['completed']);
    });
  });
});
