import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { ScriptedAnswer } from '../../src/emulator/types.js';
import { fileStore } from '../../src/stores/file-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ChatRunner } from '../../src/web/chat-runner.js';
import type { ChatStateStore } from '../../src/web/chat-state.js';
import {
  type ChatAgent,
  type ChatHandler,
  type ChatHandlerOptions,
  createChatHandler,
} from '../../src/web/create-chat-handler.js';
import { INTERRUPTED_TEXT } from '../../src/web/ui-chat-request.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import { chunksOf, MAJORS, openChat, postMessage, textOf } from './fixtures/headless-chat.js';

const env = useAgentTestEnv();

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
const broken = defineTool({
  name: 'read_meter',
  description: 'Reads the meter',
  parameters: z.object({ id: z.string() }),
  execute: () => {
    throw new Error('The meter is offline.');
  },
});
const search = defineTool({
  name: 'search_docs',
  description: 'Searches the handbook',
  parameters: z.object({ query: z.string() }),
  execute: () => ({ passages: [{ text: 'Holidays: 25 days.', fileId: 'file-7', title: 'handbook.md' }] }),
  sources: (output) =>
    output.passages.map((p) => ({
      sourceType: 'document' as const,
      id: p.fileId,
      title: p.title,
      fileId: p.fileId,
    })),
});

let server: Server | undefined;
let handler: ChatHandler | undefined;
afterEach(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  weatherRuns = 0;
  reminderRuns = 0;
});

async function start(options: Partial<ChatHandlerOptions> = {}): Promise<{ api: string; base: string }> {
  const agent: ChatAgent = new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    tools: [weather, reminder, broken, search],
  });
  handler = createChatHandler({ agent, sse: { heartbeatMs: 0 }, ...options });
  const h = handler;
  server = createServer((req, res) => void h.node(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return { api: `${base}/ui`, base };
}

const call = (id: string, name: string, args: object | string): ScriptedAnswer => ({
  message: {
    content: '',
    tool_calls: [
      { id, function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } },
    ],
  },
});
const restore = async (api: string, id: string) =>
  (await (await fetch(`${api}/${id}/messages`)).json()) as Array<{
    id: string;
    role: string;
    parts: Array<{ type: string; [key: string]: unknown }>;
  }>;

describe.each(MAJORS)('/api/ui with useChat of %s', (_major, sdk) => {
  describe('when the model calls a tool with input its schema refuses (point 8)', () => {
    it('should send tool-input-error, never tool-input-available, so onToolCall does not fire and the tool does not run', async () => {
      const { api } = await start();
      env.emu.script([call('c1', 'get_weather', '{"city":42}'), { message: { content: 'Which city?' } }]);
      const toolCalls: string[] = [];
      const chat = openChat(sdk, api, 'chat-bad-input', {
        onToolCall: ({ toolCall }) => void toolCalls.push(toolCall.toolCallId),
      });
      await chat.sendMessage({ text: 'Weather?' });
      expect(chat.state.error).toBeUndefined();
      expect(toolCalls).toEqual([]);
      expect(weatherRuns).toBe(0);
      const part = chat.state.messages.at(-1)!.parts.find((p) => p.type === 'tool-get_weather');
      expect(part).toMatchObject({ state: 'output-error' });
      expect(String(part!.errorText)).toMatch(/city/);
      expect(textOf(chat.state.messages.at(-1))).toBe('Which city?');

      env.emu.script([call('c2', 'get_weather', '{"city":42}'), { message: { content: 'Which city?' } }]);
      const types = (await chunksOf(await postMessage(api, 'chat-bad-input-raw', 'Weather?'))).map(
        (c) => c.type,
      );
      expect(types).toContain('tool-input-error');
      expect(types).not.toContain('tool-input-available');
    });
  });

  describe('when a message finishes (point 10: messageMetadata)', () => {
    it('should carry the run id, the finish reason and the usage by default, and what the hook adds', async () => {
      const { api } = await start({
        ui: {
          messageMetadata: ({ event }) => (event.type === 'finish' ? { model: 'svc-3.5-flash' } : undefined),
        },
      });
      env.emu.script([{ message: { content: 'Hello there.' } }]);
      const chat = openChat(sdk, api, 'chat-meta');
      await chat.sendMessage({ text: 'Hi' });
      const metadata = chat.state.messages.at(-1)!.metadata as Record<string, unknown>;
      expect(metadata).toMatchObject({ finishReason: 'stop', model: 'svc-3.5-flash' });
      expect(metadata.runId).toEqual(expect.any(String));
      expect((metadata.usage as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    });
  });

  describe('when a tool writes UI chunks through ChatAgentContext.ui (point 10: data parts, file, source-url)', () => {
    it('should stream data parts (transient ones to onData only), files and url sources into the message', async () => {
      const agent: ChatAgent = ({ ui }) =>
        new Agent({
          client: env.client,
          model: 'svc-3.5-flash',
          tools: [
            defineTool({
              name: 'get_weather',
              description: 'The weather in a city',
              parameters: z.object({ city: z.string() }),
              execute: ({ city }) => {
                ui.write({ type: 'data-progress', data: { percent: 50 }, transient: true });
                ui.write({ type: 'data-weather', id: 'w-1', data: { city, celsius: 14 } });
                ui.write({ type: 'file', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' });
                ui.write({
                  type: 'source-url',
                  sourceId: 's-1',
                  url: 'https://example.com/paris',
                  title: 'Paris',
                });
                return { city, condition: 'light rain' };
              },
            }),
          ],
        });
      const { api } = await start({ agent });
      env.emu.script([call('w1', 'get_weather', { city: 'Paris' }), { message: { content: 'Rainy.' } }]);
      const data: Array<{ type: string; data: unknown }> = [];
      const chat = openChat(sdk, api, 'chat-data', { onData: (part) => void data.push(part) });
      await chat.sendMessage({ text: 'Weather in Paris?' });
      expect(chat.state.error).toBeUndefined();
      const parts = chat.state.messages.at(-1)!.parts;
      expect(parts).toContainEqual(
        expect.objectContaining({ type: 'data-weather', id: 'w-1', data: { city: 'Paris', celsius: 14 } }),
      );
      expect(parts.some((p) => p.type === 'data-progress')).toBe(false);
      expect(data.map((d) => d.type)).toEqual(['data-progress', 'data-weather']);
      expect(parts).toContainEqual(expect.objectContaining({ type: 'file', mediaType: 'image/png' }));
      expect(parts).toContainEqual(
        expect.objectContaining({ type: 'source-url', url: 'https://example.com/paris' }),
      );
      expect(textOf(chat.state.messages.at(-1))).toBe('Rainy.');
    });
  });

  describe('when the model fails (point 10: error text, steps; point 6: the question stays)', () => {
    it('should mask the upstream message by default, send no empty start-step, and keep the question for a restore', async () => {
      const { api } = await start();
      const upstream = {
        error: { message: 'upstream detail: shard 7 of cluster eu-2 is down', type: 'server_error' },
      };
      env.emu.script([{ message: { content: 'x' }, fault: { status: 500, body: upstream } }]);
      const chat = openChat(sdk, api, 'chat-fail');
      await chat.sendMessage({ text: 'What is the plan?' });
      expect(chat.state.status).toBe('error');
      expect(chat.state.error?.message).toBe('An error occurred.');

      env.emu.script([{ message: { content: 'x' }, fault: { status: 500, body: upstream } }]);
      const types = (await chunksOf(await postMessage(api, 'chat-fail-raw', 'And now?'))).map((c) => c.type);
      expect(types).toEqual(['start', 'error']);

      const restored = await restore(api, 'chat-fail');
      expect(restored.map((m) => m.role)).toEqual(['user']);
      expect(restored[0]!.parts).toEqual([{ type: 'text', text: 'What is the plan?' }]);
    });

    it('should show the upstream message when onError says so', async () => {
      const { api } = await start({ ui: { onError: (error) => `Failed: ${error.message}` } });
      const upstream = { error: { message: 'shard 7 is down', type: 'server_error' } };
      env.emu.script([{ message: { content: 'x' }, fault: { status: 500, body: upstream } }]);
      const chat = openChat(sdk, api, 'chat-fail-shown');
      await chat.sendMessage({ text: 'Hi' });
      expect(chat.state.error?.message).toMatch(/^Failed: .*shard 7 is down/);
    });
  });

  describe('when an approval response continues a paused run (point 10: steps of a continuation)', () => {
    it('should open every step it closes, and keep the id of the message it continues', async () => {
      const { api } = await start();
      env.emu.script([
        call('r1', 'schedule_reminder', { text: 'water' }),
        { message: { content: 'Reminder set.' } },
      ]);
      const chat = openChat(sdk, api, 'chat-cont');
      await chat.sendMessage({ text: 'Remind me' });
      const asked = chat.state.messages.at(-1)!;
      const part = asked.parts.find((p) => p.type === 'tool-schedule_reminder') as unknown as {
        approval: { id: string };
      };
      const body = {
        id: 'chat-cont',
        trigger: 'submit-message',
        messages: [
          ...chat.state.messages.slice(0, -1),
          {
            ...asked,
            parts: asked.parts.map((p) =>
              p.type === 'tool-schedule_reminder'
                ? { ...p, state: 'approval-responded', approval: { id: part.approval.id, approved: true } }
                : p,
            ),
          },
        ],
      };
      const response = await fetch(api, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const chunks = await chunksOf(response);
      let open = 0;
      for (const chunk of chunks) {
        if (chunk.type === 'start-step') open++;
        if (chunk.type === 'finish-step') {
          expect(open).toBe(1);
          open--;
        }
      }
      expect(chunks[0]).toMatchObject({ type: 'start', messageId: asked.id });
      expect(reminderRuns).toBe(1);
    });
  });

  describe('when a page reloads (point 6: restore)', () => {
    it('should restore a failed call as output-error, keep its sources, and give the live ids', async () => {
      const { api } = await start();
      env.emu.script([
        call('m1', 'read_meter', { id: 'A' }),
        call('s1', 'search_docs', { query: 'holidays' }),
        { message: { content: 'The meter is offline; you have 25 days.' } },
      ]);
      const chat = openChat(sdk, api, 'chat-restore');
      await chat.sendMessage({ text: 'Meter and holidays?' });
      expect(chat.state.error).toBeUndefined();
      const live = chat.state.messages.at(-1)!;
      const restored = await restore(api, 'chat-restore');
      const answer = restored.at(-1)!;
      expect(answer.id).toBe(live.id);
      expect(answer.parts.find((p) => p.type === 'tool-read_meter')).toMatchObject({
        state: 'output-error',
        errorText: (live.parts.find((p) => p.type === 'tool-read_meter') as unknown as { errorText: string })
          .errorText,
      });
      const sources = (m: { parts: Array<{ type: string }> }) =>
        m.parts.filter((p) => p.type === 'source-document');
      expect(sources(live)).toHaveLength(1);
      expect(sources(answer)).toEqual(sources(live));

      // The restored conversation goes on under useChat without an error.
      env.emu.script([{ message: { content: 'You are welcome.' } }]);
      const reloaded = openChat(sdk, api, 'chat-restore', { messages: restored as never });
      await reloaded.sendMessage({ text: 'Thanks' });
      expect(reloaded.state.error).toBeUndefined();
      expect((await restore(api, 'chat-restore')).at(-1)!.id).toBe(reloaded.state.messages.at(-1)!.id);
    });
  });

  describe('when the user writes while an approval is pending (point 7)', () => {
    it('should decline the pending call, say so in the new answer, and answer the message', async () => {
      const { api } = await start();
      env.emu.script([
        call('r1', 'schedule_reminder', { text: 'water' }),
        { message: { content: 'Sure, no reminder.' } },
      ]);
      const chat = openChat(sdk, api, 'chat-decline');
      await chat.sendMessage({ text: 'Remind me' });
      expect(chat.state.messages.at(-1)!.parts.some((p) => p.state === 'approval-requested')).toBe(true);
      await chat.sendMessage({ text: 'Actually, never mind' });
      expect(chat.state.error).toBeUndefined();
      expect(chat.state.status).toBe('ready');
      const answer = chat.state.messages.at(-1)!;
      expect(answer.parts).toContainEqual(
        expect.objectContaining({
          type: 'data-declined-approvals',
          data: expect.objectContaining({ toolCallIds: ['r1'] }),
        }),
      );
      expect(textOf(answer)).toBe('Sure, no reminder.');
      expect(reminderRuns).toBe(0);
    });
  });

  describe('when a second tab sends while the first one streams (point 2)', () => {
    it("should refuse the second tab's message with an error it shows when the answer goes on, and never cut the first tab's answer", async () => {
      const { api } = await start();
      const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
      env.emu.script([{ message: { content: words }, fault: { dripMs: 250 } }]);
      const tabA = openChat(sdk, api, 'chat-tabs');
      const tabB = openChat(sdk, api, 'chat-tabs');
      const sendingA = tabA.sendMessage({ text: 'Count to sixty' });
      await expect.poll(() => textOf(tabA.state.messages.at(-1)), { timeout: 10_000 }).toContain('w3');
      await tabB.sendMessage({ text: 'Something else' });
      expect(tabB.state.status).toBe('error');
      expect(tabB.state.error?.message).toMatch(/still streaming to another page/);
      await sendingA;
      expect(tabA.state.error).toBeUndefined();
      expect(textOf(tabA.state.messages.at(-1))).toBe(words);
    });

    it("should let the second tab's message wait for an answer about to end, then answer it after that answer", async () => {
      const { api, base } = await start();
      env.emu.script([
        { message: { content: 'one two three four five six' }, fault: { dripMs: 200 } },
        { message: { content: 'Something else, then.' } },
      ]);
      const tabA = openChat(sdk, api, 'chat-tabs-wait');
      const tabB = openChat(sdk, api, 'chat-tabs-wait');
      const sendingA = tabA.sendMessage({ text: 'Count to six' });
      await expect.poll(() => textOf(tabA.state.messages.at(-1)), { timeout: 10_000 }).toContain('one');
      await tabB.sendMessage({ text: 'Something else' });
      await sendingA;
      expect(tabA.state.error).toBeUndefined();
      expect(textOf(tabA.state.messages.at(-1))).toBe('one two three four five six');
      expect(tabB.state.error).toBeUndefined();
      expect(textOf(tabB.state.messages.at(-1))).toBe('Something else, then.');
      const { messages } = (await (await fetch(`${base}/sessions/chat-tabs-wait`)).json()) as {
        messages: Array<{ role: string; content: unknown }>;
      };
      expect(messages.map((m) => m.content)).toEqual([
        'Count to six',
        'one two three four five six',
        'Something else',
        'Something else, then.',
      ]);
    });
  });
  describe('when the user sends files (point 4)', () => {
    const PNG =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const lastUserContent = () => {
      const requests = env.emu.requests().filter((r) => r.path.endsWith('/chat/completions'));
      const body = requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
      return body.messages.filter((m) => m.role === 'user').at(-1)!.content;
    };

    it('should give the model an image as an image part and a text file inlined, and take an image-only message', async () => {
      const { api } = await start();
      env.emu.script([{ message: { content: 'A dot and a note.' } }, { message: { content: 'A dot.' } }]);
      const chat = openChat(sdk, api, 'chat-files');
      const note = `data:text/plain;base64,${Buffer.from('Buy milk.').toString('base64')}`;
      await chat.sendMessage({
        text: 'What are these?',
        files: [
          { type: 'file', mediaType: 'image/png', url: PNG, filename: 'dot.png' },
          { type: 'file', mediaType: 'text/plain', url: note, filename: 'note.txt' },
        ],
      });
      expect(chat.state.error).toBeUndefined();
      // In the order of the message's parts (useChat puts the files before the text).
      expect(lastUserContent()).toEqual([
        { type: 'image_url', image_url: { url: PNG } },
        { type: 'text', text: 'note.txt (text/plain):\nBuy milk.' },
        { type: 'text', text: 'What are these?' },
      ]);

      await chat.sendMessage({ files: [{ type: 'file', mediaType: 'image/png', url: PNG }] } as never);
      expect(chat.state.error).toBeUndefined();
      expect(textOf(chat.state.messages.at(-1))).toBe('A dot.');
      expect(lastUserContent()).toEqual([{ type: 'image_url', image_url: { url: PNG } }]);
      // A reload shows the image again.
      const restored = await restore(api, 'chat-files');
      expect(restored.at(-2)!.parts).toEqual([{ type: 'file', mediaType: 'image/png', url: PNG }]);
    });

    it('should refuse a file it cannot give the model with a 400 naming the part', async () => {
      const { api } = await start();
      const chat = openChat(sdk, api, 'chat-files-bad');
      await chat.sendMessage({
        text: 'Read this',
        files: [{ type: 'file', mediaType: 'application/zip', url: 'data:application/zip;base64,UEsDBA==' }],
      });
      expect(chat.state.status).toBe('error');
      expect(chat.state.error?.message).toMatch(/parts\[0\]: application\/zip files are not taken here/);
    });
  });
  describe('when the server running an answer dies (point 3, durable store)', () => {
    it('should end the reloaded page on an error, never a bare [DONE], and keep the question and what was shown', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-ui-crash-'));
      try {
        const store = fileStore({ dir }) as unknown as ChatStateStore;
        // The state a SIGKILL leaves mid-answer: the run accepted, a few events logged, no lease renewed.
        const dying: ChatRunner = {
          start: async ({ runId }) => {
            const events = [
              { type: 'start' },
              { type: 'start-step', step: 0 },
              { type: 'text-delta', text: 'Half an ans' },
            ];
            await store.appendRunEvents(
              runId,
              0,
              events.map((e) => JSON.stringify(e)),
              { ttlMs: 60_000 },
            );
          },
          continue: async () => {},
          stop: async () => {},
          close: async () => {},
        };
        const first = createChatHandler({ store, runner: dying, leaseMs: 1_500, recheckMs: 50 });
        const url = `http://127.0.0.1/api/ui`;
        const lost = new AbortController();
        const response = await first.fetch(
          new Request(url, {
            method: 'POST',
            signal: lost.signal,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              id: 'chat-crash',
              messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Explain leases' }] }],
            }),
          }),
        );
        expect(response.status).toBe(200);
        lost.abort(); // the server is gone: its page loses the stream

        // The restarted server, on the same store: the page reloads, restores and resumes.
        const { api } = await start({ store, leaseMs: 1_500, recheckMs: 50 });
        const restored = await restore(api, 'chat-crash');
        expect(restored.map((m) => m.role)).toEqual(['user']);
        const chat = openChat(sdk, api, 'chat-crash', { messages: restored as never });
        await chat.resumeStream();
        expect(chat.state.status).toBe('error');
        expect(chat.state.error?.message).toBe(INTERRUPTED_TEXT);
        expect(textOf(chat.state.messages.at(-1))).toBe('Half an ans');

        const after = await restore(api, 'chat-crash');
        expect(after.map((m) => [m.role, textOf(m as never)])).toEqual([
          ['user', 'Explain leases'],
          ['assistant', 'Half an ans'],
        ]);
        env.emu.script([{ message: { content: 'Again, in full.' } }]);
        const next = openChat(sdk, api, 'chat-crash', { messages: after as never });
        await next.sendMessage({ text: 'Please finish' });
        expect(next.state.error).toBeUndefined();
        expect(textOf(next.state.messages.at(-1))).toBe('Again, in full.');
        await first.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('should keep the question when the page reloads only after the lease ran out', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-ui-crash-late-'));
      try {
        const store = fileStore({ dir }) as unknown as ChatStateStore;
        const dying: ChatRunner = {
          start: async () => {},
          continue: async () => {},
          stop: async () => {},
          close: async () => {},
        };
        const first = createChatHandler({ store, runner: dying, leaseMs: 200, recheckMs: 50 });
        const lost = new AbortController();
        await first.fetch(
          new Request('http://127.0.0.1/api/ui', {
            method: 'POST',
            signal: lost.signal,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              id: 'chat-crash-late',
              messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Explain leases' }] }],
            }),
          }),
        );
        lost.abort();
        const { api, base } = await start({ store, leaseMs: 200, recheckMs: 50 });
        const activeRun = async () =>
          ((await (await fetch(`${base}/sessions/chat-crash-late`)).json()) as { activeRunId: string | null })
            .activeRunId ?? null;
        await expect.poll(activeRun, { timeout: 10_000 }).toBeNull();
        expect((await restore(api, 'chat-crash-late')).map((m) => textOf(m as never))).toEqual([
          'Explain leases',
        ]);
        expect((await fetch(`${api}/chat-crash-late/stream`)).status).toBe(204);
        await first.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
  describe('when the page edits an older message or regenerates an older answer (point 5)', () => {
    const history = async (base: string, id: string) =>
      (
        (await (await fetch(`${base}/sessions/${id}`)).json()) as {
          messages: Array<{ role: string; content: unknown }>;
        }
      ).messages.map((m) => m.content);

    it('should drop from the history what the edit dropped from the page', async () => {
      const { api, base } = await start();
      env.emu.script([
        { message: { content: 'A1' } },
        { message: { content: 'A2' } },
        { message: { content: 'A2 again' } },
      ]);
      const chat = openChat(sdk, api, 'chat-edit');
      await chat.sendMessage({ text: 'Q1' });
      await chat.sendMessage({ text: 'Q2' });
      const q2 = chat.state.messages[2]!;
      await chat.sendMessage({ text: 'Q2 edited', messageId: q2.id } as never);
      expect(chat.state.error).toBeUndefined();
      expect(chat.state.messages.map((m) => textOf(m))).toEqual(['Q1', 'A1', 'Q2 edited', 'A2 again']);
      expect(await history(base, 'chat-edit')).toEqual(['Q1', 'A1', 'Q2 edited', 'A2 again']);
      const restored = await restore(api, 'chat-edit');
      expect(restored.map((m) => m.id)).toEqual(
        chat.state.messages.map((m, i) => (i % 2 ? m.id : restored[i]!.id)),
      );
    });

    it('should answer again the question of an older answer regenerate({ messageId }) names, dropping what came after', async () => {
      const { api, base } = await start();
      env.emu.script([
        { message: { content: 'A1' } },
        { message: { content: 'A2' } },
        { message: { content: 'A1 again' } },
      ]);
      const chat = openChat(sdk, api, 'chat-regen-old');
      await chat.sendMessage({ text: 'Q1' });
      await chat.sendMessage({ text: 'Q2' });
      await chat.regenerate({ messageId: chat.state.messages[1]!.id });
      expect(chat.state.error).toBeUndefined();
      expect(chat.state.messages.map((m) => textOf(m))).toEqual(['Q1', 'A1 again']);
      expect(await history(base, 'chat-regen-old')).toEqual(['Q1', 'A1 again']);
    });

    it('should keep the history when the page posts only its last message', async () => {
      const { api, base } = await start();
      env.emu.script([{ message: { content: 'A1' } }, { message: { content: 'A2' } }]);
      const chat = openChat(sdk, api, 'chat-last-only');
      await chat.sendMessage({ text: 'Q1' });
      const response = await postMessage(api, 'chat-last-only', 'Q2');
      await response.text();
      expect(await history(base, 'chat-last-only')).toEqual(['Q1', 'A1', 'Q2', 'A2']);
    });
  });
});
