import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent } from '../../src/agent/events.js';
import type { InterruptedRunResult } from '../../src/agent/run-result.js';
import { defineTool } from '../../src/tools/define-tool.js';
import {
  pipeUIMessageStream,
  toUIMessageStreamResponse,
} from '../../src/web/to-ui-message-stream-response.js';
import { createHttpTestServer } from '../helpers/create-http-test-server.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, sky: 'sunny', celsius: 21 }),
});
const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes a file',
  parameters: z.object({ id: z.string() }),
  needsApproval: true,
  execute: ({ id }) => ({ deleted: id }),
});

function call(id: string, name: string, args: object) {
  return { id, function: { name, arguments: JSON.stringify(args) } };
}

function createAgent() {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [weather, deleteFile] });
}

/** A `useChat` transport whose fetch answers with `respond(userText)`. */
function createTransport(respond: (text: string) => Response | Promise<Response>) {
  return new DefaultChatTransport<UIMessage>({
    api: 'http://svc-agents.test/api/chat',
    fetch: (async (_url: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { messages: UIMessage[] };
      const last = body.messages.at(-1);
      const text = last?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
      return respond(text);
    }) as typeof fetch,
  });
}

async function lastMessage(stream: ReadableStream<never> | ReadableStream<unknown>, message?: UIMessage) {
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const value of readUIMessageStream<UIMessage>({
    stream: stream as never,
    ...(message ? { message } : {}),
    onError: (error) => errors.push(error),
  })) {
    last = value;
  }
  expect(errors).toEqual([]);
  return last!;
}

function send(transport: DefaultChatTransport<UIMessage>, text: string) {
  return transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    abortSignal: undefined,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
  });
}

/** Our own events, recorded while the same stream is turned into the UI protocol. */
function recordEvents(stream: ReturnType<Agent['stream']>): AgentEvent[] {
  const events: AgentEvent[] = [];
  stream.on('event', (event) => events.push(event));
  return events;
}

const textOf = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
const reasoningOf = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : [])).join('');

describe('toUIMessageStreamResponse', () => {
  describe('when read by the AI SDK chat transport and readUIMessageStream', () => {
    it('should give the same reasoning, text and tool parts as our own events', async () => {
      env.emu.script([
        {
          message: {
            content: '',
            reasoning: 'The user wants weather.',
            tool_calls: [call('c1', 'get_weather', { city: 'Paris' })],
          },
        },
        { message: { content: 'It is sunny in Paris, 21 °C.', reasoning: 'Summarise.' } },
      ]);
      let events: AgentEvent[] = [];
      const transport = createTransport((text) => {
        const stream = createAgent().stream(text);
        events = recordEvents(stream);
        return toUIMessageStreamResponse(stream, { messageId: 'm1' });
      });
      const message = await lastMessage(await send(transport, 'Weather in Paris?'));
      expect(message.id).toBe('m1');
      expect(message.role).toBe('assistant');
      const texts = message.parts.filter((part) => part.type === 'text');
      const reasoning = message.parts.filter((part) => part.type === 'reasoning');
      expect(texts.map((part) => part.text).join('')).toBe(textOf(events));
      expect(textOf(events)).toBe('It is sunny in Paris, 21 °C.');
      expect(reasoning.map((part) => part.text).join('')).toBe(reasoningOf(events));
      expect(reasoningOf(events)).toContain('The user wants weather.');
      const tool = message.parts.find((part) => part.type === 'tool-get_weather') as Record<string, unknown>;
      const result = events.find((event) => event.type === 'tool-result');
      expect(result?.type).toBe('tool-result');
      expect(tool).toMatchObject({
        toolCallId: 'c1',
        state: 'output-available',
        input: { city: 'Paris' },
        output: result?.type === 'tool-result' ? result.output : undefined,
      });
      expect(message.parts.filter((part) => part.type === 'step-start')).toHaveLength(2);
    });
  });

  describe('when a tool needs approval', () => {
    it('should send an approval request, then the denial of a rejected call in the resumed stream', async () => {
      env.emu.script([
        { message: { content: '', tool_calls: [call('c_del', 'delete_file', { id: 'f1' })] } },
        { message: { content: 'I did not delete it.' } },
      ]);
      const agent = createAgent();
      let paused: InterruptedRunResult | undefined;
      let events: AgentEvent[] = [];
      const transport = createTransport((text) => {
        const stream = agent.stream(text);
        events = recordEvents(stream);
        void stream.result.then((result) => {
          if (result.status === 'interrupted') paused = result;
        });
        return toUIMessageStreamResponse(stream);
      });
      const first = await lastMessage(await send(transport, 'Delete f1'));
      const request = events.find((event) => event.type === 'tool-approval-request');
      const part = first.parts.find((p) => p.type === 'tool-delete_file') as Record<string, unknown>;
      expect(part).toMatchObject({
        toolCallId: request?.type === 'tool-approval-request' ? request.toolCallId : 'missing',
        state: 'approval-requested',
        input: { id: 'f1' },
        approval: { id: 'c_del' },
      });

      // The user rejects; the run resumes and the UI message continues from the first one.
      expect(paused?.interruptions.map((item) => item.toolCallId)).toEqual(['c_del']);
      const state = paused!.state.reject('c_del', 'Not now');
      const resumed = agent.stream(state);
      const resumedEvents = recordEvents(resumed);
      const resumedTransport = createTransport(() => toUIMessageStreamResponse(resumed));
      const second = await lastMessage(await send(resumedTransport, 'approval'), first);
      const denied = second.parts.find((p) => p.type === 'tool-delete_file') as Record<string, unknown>;
      expect(denied.state).toBe('output-denied');
      expect(resumedEvents.some((event) => event.type === 'tool-error')).toBe(true);
      expect(
        second.parts
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join(''),
      ).toBe(textOf(resumedEvents));
    });
  });

  describe('when piped into a Node ServerResponse', () => {
    it('should be read by the chat transport over real HTTP', async () => {
      env.emu.script([{ message: { content: 'Hello from Node' } }]);
      const server = await createHttpTestServer((_req, res) => {
        void pipeUIMessageStream(createAgent().stream('hi'), res);
      });
      try {
        const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/chat` });
        const message = await lastMessage(await send(transport, 'hi'));
        expect(message.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Hello from Node' });
      } finally {
        await server.close();
      }
    });
  });
});
