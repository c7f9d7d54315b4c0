import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import type { ContextOverflowEvent } from '../../../src/agent/context/context-overflow-event.js';
import { findUnpairedToolCall } from '../../../src/agent/context/conversation-turns.js';
import { AgentOptionsError } from '../../../src/agent/errors.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { handoff, handoffFilters } from '../../../src/agent/handoffs/handoff.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import type { ChatMessage } from '../../../src/api/types/chat.js';
import { type Emulator, startEmulator } from '../../../src/emulator/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';

const MODEL = 'svc-3.5-flash';
const WINDOW = 3000;
const INSTRUCTIONS = 'You are a research assistant. Use fetch_document when asked for a document.';

let emu: Emulator;
let client: SvcClient;

beforeAll(async () => {
  emu = await startEmulator({ model: { contextWindows: { [MODEL]: WINDOW }, reasoningModels: [] } });
  client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
});
beforeEach(() => emu.reset());
afterAll(async () => {
  await client.close();
  await emu.close();
});

/** Text of about `words` * 2 tokens. */
const text = (words: number, seed = 0) =>
  Array.from({ length: words }, (_, i) => `w${(i * 7 + seed) % 997}`).join(' ');

function createDocumentTool(sizes: number[]) {
  let call = 0;
  return defineTool({
    name: 'fetch_document',
    description: 'Fetches a document',
    parameters: z.object({}),
    execute: async () => text(sizes[call++ % sizes.length] ?? 10, call),
  });
}

function createAgent(
  contextWindow: ConstructorParameters<typeof Agent>[0]['contextWindow'],
  sizes = [40, 300, 80],
) {
  return new Agent({
    client,
    model: MODEL,
    instructions: INSTRUCTIONS,
    tools: [createDocumentTool(sizes)],
    contextWindow: { windows: { [MODEL]: WINDOW }, ...contextWindow },
  });
}

/** Runs `turns` user turns, each continuing the previous result's conversation; returns every event. */
async function converse(
  agent: Agent,
  turns: number,
): Promise<{ messages: ChatMessage[]; events: AgentEvent[] }> {
  let messages: ChatMessage[] = [];
  const events: AgentEvent[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const ask =
      turn % 2 === 0 ? `Please fetch document number ${turn}` : `Thanks, tell me about ${text(20, turn)}`;
    const stream = agent.stream([...messages, { role: 'user', content: ask }], { stream: false });
    for await (const event of stream) events.push(event);
    messages = (await stream.result).messages;
  }
  return { messages, events };
}

function chatBodies(): Array<{ messages: ChatMessage[]; max_tokens?: number }> {
  return emu
    .requests()
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => r.body as { messages: ChatMessage[] });
}

const overflows = (events: AgentEvent[]) =>
  events.filter((e): e is ContextOverflowEvent => e.type === 'context-overflow');

describe('contextWindow', () => {
  describe('when an agent with a context window takes over by handoff', () => {
    it('should fit its requests to its window, on the history the handoff filter left', async () => {
      const billing = new Agent({
        client,
        model: MODEL,
        name: 'billing',
        instructions: 'You handle billing.',
        contextWindow: { windows: { [MODEL]: WINDOW }, maxInputTokens: 400, strategy: 'truncate' },
      });
      const triage = new Agent({
        client,
        model: MODEL,
        name: 'triage',
        handoffs: [handoff(billing, { inputFilter: handoffFilters.removeToolHistory })],
      });
      const history: ChatMessage[] = Array.from({ length: 8 }, (_, i) => [
        { role: 'user' as const, content: `Question ${i}: ${text(50, i)}` },
        { role: 'assistant' as const, content: `Answer ${i}: ${text(50, i + 100)}` },
      ]).flat();
      emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'c1', function: { name: 'transfer_to_billing', arguments: '{}' } }],
          },
        },
        { message: { content: 'Your invoice is on its way.' } },
      ]);
      const stream = triage.stream([...history, { role: 'user', content: 'Where is my invoice?' }], {
        stream: false,
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;

      expect(result.lastAgent).toBe('billing');
      const [first, second] = chatBodies();
      expect(second!.messages.length).toBeLessThan(first!.messages.length);
      expect(second!.messages[0]).toEqual({ role: 'system', content: 'You handle billing.' });
      expect(second!.messages.at(-1)).toEqual({ role: 'user', content: 'Where is my invoice?' });
      expect(overflows(events)).toHaveLength(1);
      expect(result.steps[1]!.usage.promptTokens).toBeLessThanOrEqual(400);
    });
  });

  describe('when a conversation outgrows the window with truncate', () => {
    it('should drop the oldest turns, keep instructions first and every tool call paired', async () => {
      const agent = createAgent({ strategy: 'truncate' });
      const { events } = await converse(agent, 24);
      const bodies = chatBodies();
      expect(bodies.length).toBeGreaterThanOrEqual(24);
      for (const body of bodies) {
        expect(body.messages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
        expect(findUnpairedToolCall(body.messages)).toBeUndefined();
      }
      const dropped = overflows(events);
      expect(dropped.length).toBeGreaterThan(0);
      for (const event of dropped) {
        expect(event.strategy).toBe('truncate');
        expect(event.tokensAfter).toBeLessThanOrEqual(event.budget);
        expect(event.tokensBefore).toBeGreaterThan(event.budget);
        expect(event.dropped.length).toBeGreaterThan(0);
      }
      // Every request fit: the emulator answered them all, and says so in its usage.
      const steps = events.filter((e) => e.type === 'finish-step');
      for (const step of steps) {
        expect(step.usage.promptTokens).toBeLessThanOrEqual(WINDOW - Math.floor(WINDOW / 4));
      }
    });

    it('should measure exactly what the service then bills as prompt tokens', async () => {
      const { events } = await converse(createAgent({ strategy: 'truncate' }), 16);
      let checked = 0;
      for (const [index, event] of events.entries()) {
        if (event.type !== 'context-overflow') continue;
        const step = events.slice(index).find((e) => e.type === 'finish-step');
        expect(step?.type === 'finish-step' && step.usage.promptTokens).toBe(event.tokensAfter);
        checked += 1;
      }
      expect(checked).toBeGreaterThan(0);
    });
  });

  describe('when the conversation fits', () => {
    it('should resend a byte-identical prefix, which the service serves from its cache', async () => {
      const agent = createAgent({});
      let messages: ChatMessage[] = [];
      let cached = 0;
      for (const ask of ['Please fetch document 1', 'Thanks', 'Please fetch document 2']) {
        const result = await agent.run([...messages, { role: 'user', content: ask }]);
        messages = result.messages;
        expect(result.usage.cachedTokens).toBe(
          result.steps.reduce((total, step) => total + step.usage.cachedTokens, 0),
        );
        cached += result.usage.cachedTokens;
      }
      const bodies = emu
        .requests()
        .filter((r) => r.path.endsWith('/chat/completions'))
        .map((r) => r.body as { messages: unknown[]; tools: unknown });
      for (let i = 1; i < bodies.length; i++) {
        const before = bodies[i - 1] as { messages: unknown[]; tools: unknown };
        const after = bodies[i] as { messages: unknown[]; tools: unknown };
        expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
        expect(JSON.stringify(after.messages.slice(0, before.messages.length))).toBe(
          JSON.stringify(before.messages),
        );
      }
      expect(cached).toBeGreaterThan(0);
    });
  });

  describe('when counting tokens with the service', () => {
    it('should send at most one count request per new message', async () => {
      const agent = createAgent({ strategy: 'truncate' });
      const { messages } = await converse(agent, 10);
      const counts = emu.requests().filter((r) => r.path === '/v1/token/count');
      const countedTexts = counts.map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages));
      // Each count request carries one message, and no message is counted twice.
      for (const request of counts)
        expect((request.body as { messages: unknown[] }).messages).toHaveLength(1);
      expect(new Set(countedTexts).size).toBe(countedTexts.length);
      // Never more than the messages the conversation ever had (instructions included).
      const seen = new Set(chatBodies().flatMap((body) => body.messages.map((m) => JSON.stringify(m))));
      expect(counts.length).toBeLessThanOrEqual(seen.size);
      expect(counts.length).toBeGreaterThan(messages.length / 2);
    });

    it('should count nothing with counting: "local"', async () => {
      await converse(createAgent({ counting: 'local' }), 4);
      expect(emu.requests().filter((r) => r.path === '/v1/token/count')).toHaveLength(0);
    });

    it('should fall back to the local tokenizer when the count operation is missing', async () => {
      emu.setFaults([{ path: '/v1/token/count', status: 404 }]);
      const { events } = await converse(createAgent({}), 12);
      expect(overflows(events).length).toBeGreaterThan(0);
      expect(emu.requests().filter((r) => r.path === '/v1/token/count')).toHaveLength(1);
    });
  });

  describe('when one tool result alone is too big', () => {
    it('should cut it with a marker instead of dropping it', async () => {
      const agent = createAgent({}, [3000]);
      const events: AgentEvent[] = [];
      const stream = agent.stream('Please fetch document 7', { stream: false });
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      const tool = result.messages.find((m) => m.role === 'tool');
      expect(tool?.content).toMatch(
        /\[truncated: [\d,]+ of [\d,]+ tokens cut; svc-agents cut it to fit the context window\]/,
      );
      const [event] = overflows(events);
      expect(event?.cutToolResults).toHaveLength(1);
      expect(event?.dropped).toEqual([]);
      // The model answered from the cut result (the emulator quotes the tool's output).
      expect(result.text).toMatch(/^The document: w1 /);
    });
  });

  describe('when the strategy is summarize', () => {
    it('should replace older turns by a summary message kept in the conversation', async () => {
      const agent = createAgent({ strategy: 'summarize', summary: { maxTokens: 200 } });
      const { messages, events } = await converse(agent, 16);
      const event = overflows(events).find((e) => e.summary);
      expect(event?.strategy).toBe('summarize');
      expect(messages.filter((m) => m.role === 'system')).toHaveLength(1);
      expect(messages[0]?.content).toMatch(/^Summary of the earlier conversation:\n/);
      const summaryRequests = chatBodies().filter((b) => b.max_tokens === 200);
      expect(summaryRequests.length).toBeGreaterThan(0);
      for (const body of chatBodies()) expect(findUnpairedToolCall(body.messages)).toBeUndefined();
    });
  });

  describe('when the strategy is a function', () => {
    it('should send what it keeps', async () => {
      const agent = createAgent({
        strategy: ({ messages, currentTurnStart }) => messages.slice(currentTurnStart),
      });
      const { events } = await converse(agent, 12);
      expect(overflows(events).every((e) => e.strategy === 'custom')).toBe(true);
      expect(overflows(events).length).toBeGreaterThan(0);
    });

    it('should refuse a result that splits a tool call from its tool message', async () => {
      const agent = createAgent({
        strategy: ({ messages }) => messages.filter((m) => m.role !== 'tool'),
      });
      await expect(converse(agent, 12)).rejects.toThrow(
        /contextWindow.strategy: must keep every tool call with its tool message; .*messages\[\d+\] \(assistant\): tool call \S+ has no tool message/,
      );
    });
  });

  describe('when the service says the input is too long', () => {
    it('should shrink and retry once', async () => {
      // The agent believes in a bigger window than the service has.
      const agent = createAgent({ maxInputTokens: 5000 });
      const { events } = await converse(agent, 14);
      const rejected = overflows(events).filter((e) => e.reason === 'rejected');
      expect(rejected.length).toBeGreaterThan(0);
      const statuses = emu.requests().filter((r) => r.path.endsWith('/chat/completions'));
      expect(statuses.length).toBeGreaterThan(14);
    });
  });

  describe('when the options are wrong', () => {
    it('should name the field and rule', () => {
      expect(() => createAgent({ strategy: 'drop' as never })).toThrow(AgentOptionsError);
      expect(() => createAgent({ trimTarget: 2 })).toThrow(
        /contextWindow.trimTarget: must be a number in \(0, 1\]/,
      );
      expect(() => createAgent({ maxInputTokens: 0 })).toThrow(/contextWindow.maxInputTokens/);
    });
  });
});
