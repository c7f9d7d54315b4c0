import { readUIMessageStream, type UIMessage, validateUIMessages } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createUIMessageChunkMapper } from '../../src/web/to-ui-message-chunks.js';
import { toUIMessages } from '../../src/web/to-ui-messages.js';
import type { UIMessageChunk } from '../../src/web/ui-message-chunk.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, condition: 'light rain', celsius: 14 }),
});
const reminder = defineTool({
  name: 'schedule_reminder',
  description: 'Schedules a reminder',
  parameters: z.object({ text: z.string() }),
  needsApproval: true,
  execute: ({ text }) => ({ scheduled: text }),
});

const call = (id: string, name: string, args: Record<string, unknown>, reasoning?: string) => ({
  message: {
    content: '',
    ...(reasoning ? { reasoning } : {}),
    tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }],
  },
});

/** The assistant message the AI SDK's client builds of a run's live UI message stream. */
async function liveMessage(stream: ReturnType<Agent['stream']>): Promise<UIMessage> {
  const map = createUIMessageChunkMapper();
  const chunks: UIMessageChunk[] = [];
  for await (const event of stream) chunks.push(...map(event));
  let last: UIMessage | undefined;
  const source = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  // biome-ignore lint/suspicious/noExplicitAny: our chunk type is the SDK's, declared without importing `ai`.
  for await (const message of readUIMessageStream({ stream: source as any })) last = message;
  return last!;
}

/** Parts without what only a live stream carries (provider metadata, the streaming ids of text parts). */
const comparable = (parts: UIMessage['parts']) =>
  parts.map((part) => {
    const {
      providerMetadata: _m,
      callProviderMetadata: _c,
      id: _i,
      ...rest
    } = part as Record<string, unknown>;
    return rest;
  });

describe('toUIMessages', () => {
  describe('when a conversation had reasoning, a tool call and its answer', () => {
    it('should give the parts the live UI message stream gave, and pass the SDK validation', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [weather] });
      env.emu.script([
        call('w1', 'get_weather', { city: 'Paris' }, 'I should call get_weather.'),
        { message: { content: 'Light rain, 14 °C.', reasoning: 'The tool answered.' } },
      ]);
      const stream = agent.stream('Weather in Paris?');
      const live = await liveMessage(stream);
      const { messages } = await stream.result;

      const restored = toUIMessages(messages);
      expect(restored.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(restored[0]!.parts).toEqual([{ type: 'text', text: 'Weather in Paris?' }]);
      expect(comparable(restored[1]!.parts as UIMessage['parts'])).toEqual(comparable(live.parts));
      expect(restored[1]!.parts).toContainEqual({
        type: 'tool-get_weather',
        toolCallId: 'w1',
        state: 'output-available',
        input: { city: 'Paris' },
        output: { city: 'Paris', condition: 'light rain', celsius: 14 },
      });
      await expect(validateUIMessages({ messages: restored })).resolves.toHaveLength(2);
    });

    it('should give stable ids: the same history, the same ids', () => {
      const history: ChatMessage[] = [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ];
      const first = toUIMessages(history);
      expect(first.map((m) => m.id)).toEqual(['msg-1', 'msg-2']);
      expect(toUIMessages([...history, { role: 'user', content: 'Bye' }]).map((m) => m.id)).toEqual([
        'msg-1',
        'msg-2',
        'msg-3',
      ]);
    });
  });

  describe('when a run is paused for an approval', () => {
    it('should show the waiting call in approval-requested state, with the tool call id as approval id', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [reminder] });
      env.emu.script([call('r1', 'schedule_reminder', { text: 'water' })]);
      const result = await agent.run('Remind me to water the plants');
      expect(result.status).toBe('interrupted');
      const pendingApprovals = result.status === 'interrupted' ? result.interruptions : [];

      const restored = toUIMessages(result.messages, { pendingApprovals });
      const part = restored.at(-1)!.parts.at(-1);
      expect(part).toEqual({
        type: 'tool-schedule_reminder',
        toolCallId: 'r1',
        state: 'approval-requested',
        input: { text: 'water' },
        approval: { id: 'r1' },
      });
      await expect(validateUIMessages({ messages: restored })).resolves.toHaveLength(2);
    });

    it('should add a waiting call the stored history leaves out to the last answer', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Remind me' },
      ];
      const restored = toUIMessages(history, {
        pendingApprovals: [{ toolCallId: 'r2', toolName: 'schedule_reminder', input: { text: 'x' } }],
      });
      expect(restored.map((m) => [m.id, m.role])).toEqual([
        ['msg-0', 'user'],
        ['msg-1', 'assistant'],
        ['msg-2', 'user'],
        ['msg-3', 'assistant'],
      ]);
      expect(restored[3]!.parts).toEqual([
        { type: 'step-start' },
        {
          type: 'tool-schedule_reminder',
          toolCallId: 'r2',
          state: 'approval-requested',
          input: { text: 'x' },
          approval: { id: 'r2' },
        },
      ]);
    });

    it('should show a call nobody answered and nobody waits for as an error, not as running', () => {
      const restored = toUIMessages([
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'x1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
      ]);
      expect(restored[1]!.parts.at(-1)).toMatchObject({ state: 'output-error', toolCallId: 'x1' });
    });
  });

  describe('when a human rejected a call', () => {
    it('should show it as output-denied with the reason', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [reminder] });
      env.emu.script([
        call('r3', 'schedule_reminder', { text: 'water' }),
        { message: { content: 'Not scheduled.' } },
      ]);
      const paused = await agent.run('Remind me to water the plants');
      paused.state.reject('r3', 'not now');
      const done = await agent.run(paused.state);

      const restored = toUIMessages(done.messages);
      expect(restored.at(-1)!.parts).toContainEqual({
        type: 'tool-schedule_reminder',
        toolCallId: 'r3',
        state: 'output-denied',
        input: { text: 'water' },
        approval: { id: 'r3', approved: false, reason: 'not now' },
      });
      await expect(validateUIMessages({ messages: restored })).resolves.toHaveLength(2);
    });
  });

  describe('when a user message carries an image', () => {
    it('should give it as a file part with its media type', () => {
      const url = 'data:image/png;base64,iVBORw0KGgo=';
      const [user] = toUIMessages([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ]);
      expect(user!.parts).toEqual([
        { type: 'text', text: 'What is this?' },
        { type: 'file', mediaType: 'image/png', url },
      ]);
    });
  });
});
