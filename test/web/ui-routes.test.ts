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
import type { ChatMessage } from '../../src/api/types/chat.js';
import type { ScriptedAnswer } from '../../src/emulator/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import { cookieFetch } from './fixtures/cookie-fetch.js';

const env = useAgentTestEnv();

/** The plain state `useChat` keeps in React, here in an object: what AbstractChat needs to run. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[];
  constructor(messages: UIMessage[]) {
    this.messages = messages;
  }
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

/** `useChat`'s engine without React: one page of the chat `id`, opened with `messages`. */
class TestChat extends AbstractChat<UIMessage> {
  readonly plain: PlainChatState;
  constructor(api: string, id: string, messages: UIMessage[] = []) {
    const state = new PlainChatState(messages);
    super({
      id,
      state,
      transport: new DefaultChatTransport({ api, fetch: cookieFetch() }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    this.plain = state;
  }
}

let weatherRuns = 0;
const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    weatherRuns++;
    return { city, condition: 'light rain' };
  },
});
let reminderRuns = 0;
const reminder = defineTool({
  name: 'schedule_reminder',
  description: 'Schedules a reminder',
  parameters: z.object({ text: z.string() }),
  needsApproval: true,
  execute: ({ text }) => {
    reminderRuns++;
    return { scheduled: text };
  },
});

let server: Server | undefined;
let handler: ChatHandler | undefined;
afterEach(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  weatherRuns = 0;
  reminderRuns = 0;
});

async function start(): Promise<{ api: string; base: string }> {
  handler = createChatHandler({
    agent: new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [weather, reminder] }),
    sse: { heartbeatMs: 0 },
  });
  const h = handler;
  server = createServer((req, res) => void h.node(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return { api: `${base}/ui`, base };
}

const call = (id: string, name: string, args: object) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
});
/** A long answer that streams slowly (three words per chunk), then asks for the weather. */
const slowAnswerThenWeather = (): ScriptedAnswer => ({
  message: {
    content: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '),
    tool_calls: [{ id: 'w1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  fault: { dripMs: 150 },
});
const textOf = (message: UIMessage | undefined) =>
  message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';
const session = async (base: string, id: string) =>
  (await (await fetch(`${base}/sessions/${id}`)).json()) as {
    messages: ChatMessage[];
    activeRunId: string | null;
  };
const restore = async (api: string, id: string) =>
  (await (await fetch(`${api}/${id}/messages`)).json()) as UIMessage[];

describe('the useChat routes', () => {
  describe('when useChat resumes on page load (GET /ui/:id/stream)', () => {
    it('should answer 204 when nothing runs, leaving the chat ready without an error', async () => {
      const { api } = await start();
      expect((await fetch(`${api}/chat-idle/stream`)).status).toBe(204);
      const chat = new TestChat(api, 'chat-idle');
      await chat.resumeStream();
      expect(chat.plain.status).toBe('ready');
      expect(chat.plain.error).toBeUndefined();
    });

    it('should replay the run in progress from its start and follow it to the end on a reloaded page', async () => {
      const { api } = await start();
      env.emu.script([
        { message: { content: 'one two three four five six seven eight' }, fault: { dripMs: 300 } },
      ]);
      const first = new TestChat(api, 'chat-live');
      await first.resumeStream(); // useChat({ resume: true }) on load: the chat reconnects
      const sending = first.sendMessage({ text: 'Count' });
      await expect.poll(() => textOf(first.plain.messages.at(-1)), { timeout: 10_000 }).toContain('one');
      // Leaving the page aborts the fetch, as stop() does.
      await first.stop();
      await sending;

      // The reload: the page restores the conversation, then resumes the live run.
      const restored = await restore(api, 'chat-live');
      expect(restored.map((m) => m.role)).toEqual(['user']);
      const reloaded = new TestChat(api, 'chat-live', restored);
      await reloaded.resumeStream();
      expect(reloaded.plain.error).toBeUndefined();
      expect(reloaded.plain.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOf(reloaded.plain.messages.at(-1))).toBe('one two three four five six seven eight');
    });
  });

  describe('when a page reloads while an approval is pending (GET /ui/:id/messages)', () => {
    it('should restore the conversation with the call in approval-requested state, and approving it completes the run', async () => {
      const { api } = await start();
      env.emu.script([
        { message: { content: 'Hello' } },
        call('r1', 'schedule_reminder', { text: 'water' }),
        { message: { content: 'Reminder set.' } },
      ]);
      const first = new TestChat(api, 'chat-pending');
      await first.sendMessage({ text: 'Hi' });
      await first.sendMessage({ text: 'Remind me to water the plants' });

      const restored = await restore(api, 'chat-pending');
      expect(restored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      const part = restored.at(-1)!.parts.at(-1) as { state: string; approval?: { id: string } };
      expect(part).toMatchObject({ type: 'tool-schedule_reminder', state: 'approval-requested' });

      const reloaded = new TestChat(api, 'chat-pending', restored);
      await reloaded.addToolApprovalResponse({ id: part.approval!.id, approved: true });
      await expect.poll(() => reloaded.plain.status, { timeout: 10_000 }).toBe('ready');
      expect(reloaded.plain.error).toBeUndefined();
      expect(textOf(reloaded.plain.messages.at(-1))).toBe('Reminder set.');
      expect(reminderRuns).toBe(1);
      // After the run, a reload shows the call done and the answer.
      const after = await restore(api, 'chat-pending');
      expect(after.at(-1)!.parts).toContainEqual(
        expect.objectContaining({ type: 'tool-schedule_reminder', state: 'output-available' }),
      );
      expect(textOf(after.at(-1) as UIMessage)).toBe('Reminder set.');
    });
  });

  describe('when a request is malformed', () => {
    it('should answer 400 naming the field for an unknown trigger, and 404 for other methods on the chat routes', async () => {
      const { api } = await start();
      const bad = await fetch(api, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'chat-bad',
          trigger: 'explode',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^trigger: /);
      expect((await fetch(`${api}/chat-bad/stream`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${api}/chat-bad/messages`)).status).toBe(200);
      expect(await (await fetch(`${api}/chat-bad/messages`)).json()).toEqual([]);
    });
  });

  describe('when regenerate() asks for the last answer again', () => {
    it('should replace the last answer instead of adding a turn', async () => {
      const { api, base } = await start();
      env.emu.script([{ message: { content: 'First answer.' } }, { message: { content: 'Second answer.' } }]);
      const chat = new TestChat(api, 'chat-regen');
      await chat.sendMessage({ text: 'Tell me something' });
      expect(textOf(chat.plain.messages.at(-1))).toBe('First answer.');
      await chat.regenerate();
      expect(chat.plain.error).toBeUndefined();
      expect(chat.plain.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOf(chat.plain.messages.at(-1))).toBe('Second answer.');
      const { messages } = await session(base, 'chat-regen');
      expect(messages).toEqual([
        { role: 'user', content: 'Tell me something' },
        expect.objectContaining({ role: 'assistant', content: 'Second answer.' }),
      ]);
    });
  });

  describe('when stop() aborts the fetch mid-answer', () => {
    it('should stop the run at once when the chat does not resume: no tool runs, and the next message is answered', async () => {
      const { api, base } = await start();
      env.emu.script([slowAnswerThenWeather()]);
      const chat = new TestChat(api, 'chat-stop');
      const sending = chat.sendMessage({ text: 'Tell me a long story' });
      await expect.poll(() => textOf(chat.plain.messages.at(-1)), { timeout: 10_000 }).toContain('word3');
      await chat.stop();
      await sending;
      const shown = textOf(chat.plain.messages.at(-1));
      await expect
        .poll(async () => (await session(base, 'chat-stop')).activeRunId, { timeout: 10_000 })
        .toBeNull();

      env.emu.reset();
      env.emu.script([{ message: { content: 'A short one.' } }]);
      await chat.sendMessage({ text: 'A short one please' });
      expect(chat.plain.error).toBeUndefined();
      expect(textOf(chat.plain.messages.at(-1))).toBe('A short one.');
      expect(weatherRuns).toBe(0);
      const { messages } = await session(base, 'chat-stop');
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      const kept = messages[1]!.content as string;
      expect(kept.startsWith(shown)).toBe(true);
      expect(kept).not.toContain('word39');
    });

    it('should, when the chat resumes, stop the run once no page follows it again: no tool runs, and a reload shows exactly what the page showed', async () => {
      const { api, base } = await start();
      const chat = new TestChat(api, 'chat-stop-resume');
      await chat.resumeStream(); // as useChat({ resume: true }) does on load: the chat reconnects
      // Slow enough that the tool call comes long after the reload grace: the stop, not the clock, decides.
      env.emu.script([{ ...slowAnswerThenWeather(), fault: { dripMs: 500 } }]);
      const sending = chat.sendMessage({ text: 'Tell me a long story' });
      await expect.poll(() => textOf(chat.plain.messages.at(-1)), { timeout: 10_000 }).toContain('word3');
      await chat.stop();
      await sending;
      const shown = textOf(chat.plain.messages.at(-1));
      // Nobody follows the run again (no reload): it is stopped, before its tool.
      await expect
        .poll(async () => (await session(base, 'chat-stop-resume')).activeRunId, { timeout: 10_000 })
        .toBeNull();
      expect(weatherRuns).toBe(0);

      // The reload shows exactly what the page showed, and nothing more.
      const restored = await restore(api, 'chat-stop-resume');
      expect(restored.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOf(restored[1])).toBe(shown);
      const reloaded = new TestChat(api, 'chat-stop-resume', restored);
      await reloaded.resumeStream();
      expect(reloaded.plain.error).toBeUndefined();
      expect(textOf(reloaded.plain.messages.at(-1))).toBe(shown);

      env.emu.reset();
      env.emu.script([{ message: { content: 'A short one.' } }]);
      await reloaded.sendMessage({ text: 'A short one please' });
      expect(reloaded.plain.error).toBeUndefined();
      expect(textOf(reloaded.plain.messages.at(-1))).toBe('A short one.');
      const { messages } = await session(base, 'chat-stop-resume');
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(messages[1]!.content).toBe(shown);
      expect(JSON.stringify(messages)).not.toContain('light rain');
    });

    it('should stop a run still going when the next message comes, instead of answering 409', async () => {
      const { api, base } = await start();
      const chat = new TestChat(api, 'chat-stop-busy');
      await chat.resumeStream();
      env.emu.script([slowAnswerThenWeather()]);
      const sending = chat.sendMessage({ text: 'Tell me a long story' });
      await expect.poll(() => textOf(chat.plain.messages.at(-1)), { timeout: 10_000 }).toContain('word3');
      await chat.stop();
      await sending;
      expect((await session(base, 'chat-stop-busy')).activeRunId).not.toBeNull();

      env.emu.reset();
      env.emu.script([{ message: { content: 'A short one.' } }]);
      await chat.sendMessage({ text: 'A short one please' });
      expect(chat.plain.error).toBeUndefined();
      expect(textOf(chat.plain.messages.at(-1))).toBe('A short one.');
      expect(weatherRuns).toBe(0);
      const { messages } = await session(base, 'chat-stop-busy');
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    });
  });
});
