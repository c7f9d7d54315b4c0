import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { MaxTurnsExceededError } from '../../src/agent/errors/max-turns-exceeded-error.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { hasToolCall, isStepCount } from '../../src/agent/stop-conditions.js';
import type { AssistantMessage, ToolMessage } from '../../src/api/types/chat.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { hostedTools } from '../../src/tools/hosted-tools.js';
import { callDelta, chatRequests, chunk, usage, useAgentTestEnv } from './helpers/agent-test-env.js';
import { createRecordingTool } from './helpers/tools.js';

const env = useAgentTestEnv();

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function createAgent(overrides: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', ...overrides });
}

describe('runAgent', () => {
  describe('when two parallel calls interleave their argument fragments in the stream', () => {
    it('should run both with their own arguments, in parallel, and answer in call order', async () => {
      const order: string[] = [];
      const slow = (name: string) => async () => {
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`end ${name}`);
        return `${name} done`;
      };
      const weather = createRecordingTool('get_weather', { execute: slow('weather') });
      const time = createRecordingTool('get_time', { execute: slow('time') });
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk(
              callDelta({
                index: 0,
                id: 'call_a',
                type: 'function',
                function: { name: 'get_weather', arguments: '' },
              }),
            ),
            chunk(
              callDelta({
                index: 1,
                id: 'call_b',
                type: 'function',
                function: { name: 'get_time', arguments: '' },
              }),
            ),
            chunk(callDelta({ index: 0, function: { arguments: '{"city":' } })),
            chunk(callDelta({ index: 1, function: { arguments: '{"zone": "UTC"' } })),
            chunk(callDelta({ index: 0, function: { arguments: '"Paris"}' } })),
            chunk(callDelta({ index: 1, function: { arguments: '}' } }), { finish_reason: 'tool_calls' }),
          ],
        },
        { message: { content: 'Both done.' } },
      ]);
      const stream = createAgent({ tools: [weather.tool, time.tool] }).stream('Weather and time?');
      const events = await collect(stream);
      const result = await stream.result;

      expect(weather.calls.map((call) => call.args)).toEqual([{ city: 'Paris' }]);
      expect(time.calls.map((call) => call.args)).toEqual([{ zone: 'UTC' }]);
      expect(order.slice(0, 2).sort()).toEqual(['start time', 'start weather']);
      const deltas = events.filter((event) => event.type === 'tool-input-delta');
      expect(deltas).toEqual([
        { type: 'tool-input-delta', toolCallId: 'call_a', delta: '{"city":' },
        { type: 'tool-input-delta', toolCallId: 'call_b', delta: '{"zone": "UTC"' },
        { type: 'tool-input-delta', toolCallId: 'call_a', delta: '"Paris"}' },
        { type: 'tool-input-delta', toolCallId: 'call_b', delta: '}' },
      ]);
      const second = chatRequests(env.emu)[1]!;
      const assistant = second.messages[1] as AssistantMessage;
      // Exact argument strings go back, whitespace included.
      expect(assistant.tool_calls?.map((call) => [call.id, call.function.arguments])).toEqual([
        ['call_a', '{"city":"Paris"}'],
        ['call_b', '{"zone": "UTC"}'],
      ]);
      expect(second.messages.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'call_a', content: 'weather done' },
        { role: 'tool', tool_call_id: 'call_b', content: 'time done' },
      ]);
      expect(result.text).toBe('Both done.');
    });
  });

  describe('when a prefix of the streamed arguments is already valid JSON', () => {
    it('should parse and run the call only once the stream has ended', async () => {
      const search = createRecordingTool('search');
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk(
              callDelta({
                index: 0,
                id: 'q1',
                type: 'function',
                function: { name: 'search', arguments: '{"query":"x"}' },
              }),
            ),
            chunk(callDelta({ index: 0, function: { arguments: '' } })),
            // Not how JSON grows, but a partial-JSON parser would already have run {"query":"x"}.
            chunk({ role: '', content: '' }),
            chunk(callDelta({ index: 0, function: { arguments: ' ' } }), { finish_reason: 'tool_calls' }),
          ],
        },
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk(
              callDelta({
                index: 0,
                id: 'q2',
                type: 'function',
                function: { name: 'search', arguments: '{"query":"x"' },
              }),
            ),
            chunk(callDelta({ index: 0, function: { arguments: ',"limit":5}' } }), {
              finish_reason: 'tool_calls',
            }),
          ],
        },
        { message: { content: 'found' } },
      ]);
      const stream = createAgent({ tools: [search.tool] }).stream('find x');
      const events = await collect(stream);
      await stream.result;
      expect(search.calls.map((call) => call.args)).toEqual([{ query: 'x' }, { query: 'x', limit: 5 }]);
      const types = events.map((event) => event.type);
      const lastDelta = types.lastIndexOf('tool-input-delta');
      expect(types.indexOf('tool-call')).toBeGreaterThan(types.indexOf('tool-input-delta'));
      expect(types.filter((type) => type === 'tool-call')).toHaveLength(2);
      expect(types.lastIndexOf('tool-call')).toBeGreaterThan(lastDelta);
    });
  });

  describe('when toolConcurrency is 1', () => {
    it('should run the calls of a turn one after the other, in call order', async () => {
      const order: string[] = [];
      const step = (name: string) => async () => {
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push(`end ${name}`);
        return name;
      };
      const a = createRecordingTool('a', { execute: step('a') });
      const b = createRecordingTool('b', { execute: step('b') });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [
              { id: '1', function: { name: 'a', arguments: '{}' } },
              { id: '2', function: { name: 'b', arguments: '{}' } },
            ],
          },
        },
        { message: { content: 'ok' } },
      ]);
      await createAgent({ tools: [a.tool, b.tool], toolConcurrency: 1 }).run('x');
      expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
    });
  });

  describe('when a legacy model streams deltas without index and with empty ids', () => {
    it('should give the call one generated id used in events, the assistant message and the tool message', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk(callDelta({ id: '', type: '', function: { name: 'get_weather', arguments: '' } })),
            chunk(callDelta({ id: '', type: '', function: { name: '', arguments: '{"' } })),
            chunk(callDelta({ id: '', type: '', function: { name: '', arguments: 'city":"Oslo"}' } })),
            // A tool turn that says "stop", as the service documents.
            chunk({ role: '', content: '' }, { finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Cold.' } },
      ]);
      const stream = createAgent({ tools: [weather.tool] }).stream('Oslo?');
      const events = await collect(stream);
      await stream.result;

      expect(weather.calls.map((call) => call.args)).toEqual([{ city: 'Oslo' }]);
      const id = weather.calls[0]!.toolCallId;
      expect(id).toMatch(/\S/);
      const start = events.find((event) => event.type === 'tool-input-start');
      const call = events.find((event) => event.type === 'tool-call');
      expect(start).toEqual({ type: 'tool-input-start', toolCallId: id, toolName: 'get_weather' });
      expect(call).toEqual({
        type: 'tool-call',
        toolCallId: id,
        toolName: 'get_weather',
        input: { city: 'Oslo' },
      });
      const messages = chatRequests(env.emu)[1]!.messages;
      expect((messages[1] as AssistantMessage).tool_calls?.[0]?.id).toBe(id);
      expect((messages[2] as ToolMessage).tool_call_id).toBe(id);
    });
  });

  describe('when a non-streamed tool turn ends with finish_reason "stop" or null', () => {
    it.each(['stop', null])('should still run the tools (finish_reason %s)', async (finishReason) => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
          },
          finish_reason: finishReason,
        },
        { message: { content: 'Warm.' } },
      ]);
      const result = await createAgent({ tools: [weather.tool] }).run('Rome?');
      expect(weather.calls).toHaveLength(1);
      expect(result.steps.map((step) => step.finishReason)).toEqual([finishReason, 'stop']);
      expect(result.text).toBe('Warm.');
    });
  });

  describe('when a non-streamed answer has empty tool-call ids', () => {
    it('should generate the id before the events name it', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          completion: {
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: '',
                  tool_calls: [
                    { id: '', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
                  ],
                },
                finish_reason: 'stop',
              },
            ],
          },
        },
        { message: { content: 'ok' } },
      ]);
      let n = 0;
      const agent = createAgent({ tools: [weather.tool], _internal: { generateId: () => `gen_${++n}` } });
      const stream = agent.stream('x', { stream: false });
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.find((event) => event.type === 'tool-input-start')).toMatchObject({
        toolCallId: 'gen_1',
      });
      expect(weather.calls[0]?.toolCallId).toBe('gen_1');
      expect(result.messages[2]).toEqual({
        role: 'tool',
        tool_call_id: 'gen_1',
        content: 'get_weather ok {}',
      });
    });
  });

  describe('when the model sends reasoning', () => {
    it('should emit reasoning-delta and send `reasoning` back as it came', async () => {
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ role: '', reasoning: 'Think ' }),
            chunk({ role: '', reasoning: 'hard.' }),
            chunk({ role: '', content: 'Answer' }, { finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Again' } },
      ]);
      const agent = createAgent();
      const stream = agent.stream('Q?');
      const events = await collect(stream);
      const first = await stream.result;
      expect(events.filter((event) => event.type === 'reasoning-delta').map((event) => event.text)).toEqual([
        'Think ',
        'hard.',
      ]);
      expect(first.steps[0]?.reasoning).toBe('Think hard.');
      await agent.run([...first.messages, { role: 'user', content: 'More?' }]);
      expect(chatRequests(env.emu)[1]!.messages[1]).toEqual({
        role: 'assistant',
        content: 'Answer',
        reasoning: 'Think hard.',
      });
    });

    it('should keep `reasoning_content` (alt-style) in its own field, streamed and not', async () => {
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ role: '', reasoning_content: 'Alt thought.' }),
            chunk({ role: '', content: 'A' }, { finish_reason: 'stop' }),
          ],
        },
        {
          completion: {
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: 'B', reasoning_content: 'Whole thought.' },
                finish_reason: 'stop',
              },
            ],
          },
        },
      ]);
      const agent = createAgent({ modelSettings: { reasoning_format: 'alt-style' } });
      const streamed = agent.stream('Q?');
      const events = await collect(streamed);
      const first = await streamed.result;
      expect(events.filter((event) => event.type === 'reasoning-delta')).toEqual([
        { type: 'reasoning-delta', text: 'Alt thought.' },
      ]);
      expect(first.messages[1]).toEqual({
        role: 'assistant',
        content: 'A',
        reasoning_content: 'Alt thought.',
      });
      const second = await agent.run('Q2?');
      expect(second.messages[1]).toEqual({
        role: 'assistant',
        content: 'B',
        reasoning_content: 'Whole thought.',
      });
      expect(second.steps[0]?.reasoning).toBe('Whole thought.');
      expect(chatRequests(env.emu)[0]).toMatchObject({ reasoning_format: 'alt-style', stream: true });
    });
  });

  describe('when agent.run() streams the HTTP answers (stream: true)', () => {
    it('should fold the chunks into the same steps and answer, with no events to observe', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ role: '', reasoning: 'Need the weather.' }),
            chunk(
              callDelta({
                index: 0,
                id: 'call_w',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":' },
              }),
            ),
            chunk(callDelta({ index: 0, function: { arguments: '"Oslo"}' } }), { usage: usage(10, 5) }),
            chunk({ role: '', content: '' }, { finish_reason: 'tool_calls', usage: usage(10, 6) }),
          ],
        },
        {
          chunks: [
            chunk({ role: 'assistant', content: 'Cold ' }),
            chunk({ role: '', content: 'in Oslo.' }, { finish_reason: 'stop', usage: usage(20, 4) }),
          ],
        },
      ]);
      const result = await createAgent({ tools: [weather.tool] }).run('Weather?', { stream: true });

      expect(chatRequests(env.emu).map((request) => request.stream)).toEqual([true, true]);
      expect(weather.calls.map((call) => [call.toolCallId, call.args])).toEqual([
        ['call_w', { city: 'Oslo' }],
      ]);
      expect(result.text).toBe('Cold in Oslo.');
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool_calls', 'stop']);
      expect(result.steps[0]?.reasoning).toBe('Need the weather.');
      expect(result.usage.totalTokens).toBe(16 + 24);
    });
  });

  describe('when a full two-turn run streams', () => {
    it("should emit exactly this sequence of events and sum each turn's final usage", async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }, { usage: usage(0, 0) }),
            chunk(
              callDelta({
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":' },
              }),
              {
                usage: usage(10, 2),
              },
            ),
            chunk(callDelta({ index: 0, function: { arguments: '"Paris"}' } }), { usage: usage(10, 4, 3) }),
            chunk({ role: '' }, { finish_reason: 'tool_calls', usage: usage(10, 5, 3) }),
          ],
        },
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }, { usage: usage(0, 0) }),
            chunk({ role: '', content: 'Sunny ' }, { usage: usage(20, 1) }),
            chunk({ role: '', content: 'today.' }, { finish_reason: 'stop', usage: usage(20, 3) }),
          ],
        },
      ]);
      const stream = createAgent({ tools: [weather.tool] }).stream('Paris?');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.map((event) => event.type)).toEqual([
        'start',
        'start-step',
        'tool-input-start',
        'tool-input-delta',
        'tool-input-delta',
        'tool-call',
        'tool-result',
        'finish-step',
        'start-step',
        'text-delta',
        'text-delta',
        'finish-step',
        'finish',
      ]);
      expect(result.usage).toEqual({
        promptTokens: 30,
        completionTokens: 8,
        totalTokens: 38,
        cachedTokens: 3,
      });
      expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: result.usage });
      expect(result.steps.map((step) => step.usage.totalTokens)).toEqual([15, 23]);
      expect(result.text).toBe('Sunny today.');
      expect(result.finishReason).toBe('stop');
    });

    it('should emit the same events, one delta each, when the service is not streamed', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          finish_reason: 'stop',
        },
        { message: { content: 'Sunny today.', reasoning: 'Easy.' } },
      ]);
      const stream = createAgent({ tools: [weather.tool] }).stream('Paris?', { stream: false });
      const events = await collect(stream);
      expect(events.map((event) => event.type)).toEqual([
        'start',
        'start-step',
        'tool-input-start',
        'tool-input-delta',
        'tool-call',
        'tool-result',
        'finish-step',
        'start-step',
        'reasoning-delta',
        'text-delta',
        'finish-step',
        'finish',
      ]);
      expect(chatRequests(env.emu).map((body) => body.stream)).toEqual([undefined, undefined]);
    });
  });

  describe('when the service ran a hosted web search', () => {
    it('should report it, never execute it, and leave it out of the assistant message sent back', async () => {
      const lookup = createRecordingTool('web_search_local');
      env.emu.script([
        {
          chunks: [
            chunk({
              role: 'assistant',
              content: '',
              tool_calls: [
                {
                  id: 'ws_1',
                  type: 'web_search',
                  function: { name: 'svc_websearch', arguments: '{"q":"news"}', results: [] },
                },
              ],
            }),
            chunk({ role: '', content: 'Here is the news.' }, { finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Follow-up.' } },
      ]);
      const agent = createAgent({
        tools: [lookup.tool, hostedTools.webSearch({ description: 'Search the web' })],
      });
      const stream = agent.stream('News?');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.filter((event) => event.type === 'hosted-tool-call')).toEqual([
        {
          type: 'hosted-tool-call',
          toolType: 'web_search',
          toolCallId: 'ws_1',
          name: 'svc_websearch',
          arguments: '{"q":"news"}',
          results: [],
        },
      ]);
      expect(lookup.calls).toHaveLength(0);
      expect(result.steps).toHaveLength(1);
      expect(result.steps[0]?.hostedToolCalls).toHaveLength(1);
      expect(result.messages[1]).toEqual({ role: 'assistant', content: 'Here is the news.' });
      expect(chatRequests(env.emu)[0]!.tools).toEqual([
        expect.objectContaining({ type: 'function' }),
        { type: 'web_search', function: { description: 'Search the web' } },
      ]);
      await agent.run([...result.messages, { role: 'user', content: 'And?' }]);
      expect(
        chatRequests(env.emu)[1]!.messages.filter((message) => (message as ToolMessage).role === 'tool'),
      ).toEqual([]);
    });
  });

  describe('when the default model runs a hosted web search', () => {
    it.each([true, false])('should report the call before the answer text (stream: %s)', async (stream) => {
      const run = createAgent({ tools: [hostedTools.webSearch({})] }).stream('Search the web for news', {
        stream,
      });
      const events = await collect(run);
      const result = await run.result;
      const types = events.map((event) => event.type);
      expect(types.filter((type) => type === 'hosted-tool-call')).toHaveLength(1);
      expect(types.indexOf('hosted-tool-call')).toBeLessThan(types.indexOf('text-delta'));
      expect(events.find((event) => event.type === 'hosted-tool-call')).toMatchObject({
        toolType: 'web_search',
      });
      expect(result.messages.at(-1)).not.toHaveProperty('tool_calls');
      expect(result.steps).toHaveLength(1);
    });
  });

  describe('when a tool fails in the ways a model can fix', () => {
    it('should tell the model (bad arguments, unknown tool, throwing tool) and go on', async () => {
      const strict = defineTool({
        name: 'get_weather',
        description: 'Weather',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => city,
      });
      const broken = createRecordingTool('broken', {
        execute: () => {
          throw new Error('disk on fire');
        },
      });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [
              { id: 'c1', function: { name: 'get_weather', arguments: '{"city":42}' } },
              { id: 'c2', function: { name: 'nope', arguments: '{}' } },
              { id: 'c3', function: { name: 'broken', arguments: '{}' } },
            ],
          },
        },
        { message: { content: 'Sorry.' } },
      ]);
      const stream = createAgent({ tools: [strict, broken.tool] }).stream('x');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.filter((event) => event.type === 'tool-error').map((event) => event.toolCallId)).toEqual([
        'c1',
        'c2',
        'c3',
      ]);
      expect(result.steps[0]?.toolResults.map((r) => r.status)).toEqual([
        'invalid-arguments',
        'no-such-tool',
        'error',
      ]);
      const toolMessages = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
      expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
      expect(toolMessages[2]?.content).toContain('disk on fire');
      expect(result.text).toBe('Sorry.');
    });
  });

  describe('when a tool times out', () => {
    it('should answer the call with a timed-out tool message and go on', async () => {
      const stuck = createRecordingTool('stuck', { timeoutMs: 50, execute: () => new Promise(() => {}) });
      env.emu.script([
        {
          message: { content: '', tool_calls: [{ id: 't1', function: { name: 'stuck', arguments: '{}' } }] },
        },
        { message: { content: 'It hung.' } },
      ]);
      const result = await createAgent({ tools: [stuck.tool] }).run('x');
      expect(result.steps[0]?.toolResults[0]?.status).toBe('timeout');
      expect(result.messages[2]).toEqual({
        role: 'tool',
        tool_call_id: 't1',
        content: expect.stringMatching(/timed out/i),
      });
      expect(result.text).toBe('It hung.');
    });
  });

  describe('when an audio model streams audio', () => {
    it('should emit audio-delta events and send the transcript back as content', async () => {
      env.emu.script([
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ role: '', audio: { data: 'AAAA', transcript: 'Hel' } }),
            chunk(
              { role: '', audio: { data: 'BBBB', transcript: 'lo' } },
              { finish_reason: null, omitFinishReason: true },
            ),
          ],
        },
      ]);
      const stream = createAgent({
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { voice: 'qingchunshaonv', format: 'pcm' } },
      }).stream('Say hello');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.filter((event) => event.type === 'audio-delta')).toEqual([
        { type: 'audio-delta', data: 'AAAA', transcript: 'Hel' },
        { type: 'audio-delta', data: 'BBBB', transcript: 'lo' },
      ]);
      expect(result.text).toBe('Hello');
      expect(result.messages[1]).toEqual({ role: 'assistant', content: 'Hello' });
    });
  });

  describe('when the run is given a context', () => {
    it('should hand it, the client and the call id to the tools', async () => {
      const whoami = createRecordingTool('whoami', {
        execute: (_args, ctx) => `${(ctx.context as { userId: string }).userId} ${ctx.client === env.client}`,
      });
      env.emu.script([
        { message: { content: '', tool_calls: [{ id: 'w1', function: { name: 'whoami', arguments: '' } }] } },
        { message: { content: 'ok' } },
      ]);
      const result = await createAgent({ tools: [whoami.tool] }).run('who?', { context: { userId: 'u42' } });
      expect(result.messages[2]).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'u42 true' });
      expect(whoami.calls[0]?.toolCallId).toBe('w1');
    });
  });

  describe('when hooks are given', () => {
    it('should call onStepStart before each request and onStepFinish after each step', async () => {
      const seen: string[] = [];
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'h1', function: { name: 'get_weather', arguments: '{}' } }],
          },
        },
        { message: { content: 'ok' } },
      ]);
      await createAgent({
        tools: [weather.tool],
        hooks: {
          onStepStart: ({ step, messages }) => {
            seen.push(`start ${step} ${messages.length}`);
          },
          onStepFinish: ({ step }) => {
            seen.push(`finish ${step.index} ${step.toolResults.length}`);
          },
        },
      }).run('x');
      expect(seen).toEqual(['start 0 1', 'finish 0 1', 'start 1 3', 'finish 1 0']);
    });
  });

  describe('when the run reaches maxTurns while the model still asks for tools', () => {
    it('should throw MaxTurnsExceededError with the partial result, the last calls answered but not run', async () => {
      const weather = createRecordingTool('get_weather');
      const call = (id: string) => ({
        message: {
          content: '',
          tool_calls: [{ id, function: { name: 'get_weather', arguments: `{"n":"${id}"}` } }],
        },
      });
      env.emu.script([call('c1'), call('c2')]);
      const error = await createAgent({ tools: [weather.tool], maxTurns: 2 })
        .run('loop')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MaxTurnsExceededError);
      const maxError = error as MaxTurnsExceededError;
      expect(weather.calls).toHaveLength(1);
      expect(maxError.result.messages).toHaveLength(5);
      expect(maxError.result.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c2',
        content: expect.stringContaining('limit of 2 turns'),
      });
      expect(maxError.state.messages).toEqual(maxError.result.messages);
      expect(maxError.result.lastAgent).toBe('agent');
      expect(Object.keys(maxError)).not.toContain('state');
      const json = JSON.stringify(maxError);
      expect(JSON.parse(json)).toMatchObject({ name: 'MaxTurnsExceededError', maxTurns: 2 });
      expect(json).not.toContain('get_weather');
      expect(json).not.toContain(env.emu.apiKey);
    });
  });

  describe('when stopWhen conditions are given', () => {
    it('should stop after the step that called the named tool', async () => {
      const done = createRecordingTool('submit');
      env.emu.script([
        {
          message: { content: '', tool_calls: [{ id: 's1', function: { name: 'submit', arguments: '{}' } }] },
        },
      ]);
      const result = await createAgent({ tools: [done.tool], stopWhen: hasToolCall('submit') }).run('go');
      expect(done.calls).toHaveLength(1);
      expect(result.steps).toHaveLength(1);
      expect(result.status).toBe('completed');
      expect(chatRequests(env.emu)).toHaveLength(1);
      expect(result.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's1' });
    });

    it('should stop at a step count', async () => {
      const t = createRecordingTool('t');
      const turn = (id: string) => ({
        message: { content: '', tool_calls: [{ id, function: { name: 't', arguments: `{"i":"${id}"}` } }] },
      });
      env.emu.script([turn('a'), turn('b'), turn('c')]);
      const result = await createAgent({ tools: [t.tool], stopWhen: [isStepCount(2)] }).run('go');
      expect(result.steps).toHaveLength(2);
      expect(chatRequests(env.emu)).toHaveLength(2);
    });

    it('should always stop a loop that repeats the same call with the same arguments three times', async () => {
      const t = createRecordingTool('t');
      const turn = (id: string, args: string) => ({
        message: { content: '', tool_calls: [{ id, function: { name: 't', arguments: args } }] },
      });
      env.emu.script([
        turn('a', '{"q":1,"r":2}'),
        turn('b', '{"r":2,"q":1}'),
        turn('c', '{ "q": 1, "r": 2 }'),
        turn('d', '{}'),
      ]);
      const result = await createAgent({ tools: [t.tool] }).run('go');
      expect(result.steps).toHaveLength(3);
      expect(t.calls).toHaveLength(3);
      expect(chatRequests(env.emu)).toHaveLength(3);
    });
  });

  describe('when the default model of the emulator answers', () => {
    it('should call the matching tool and answer with its result', async () => {
      const weather = defineTool({
        name: 'get_weather',
        description: 'Get the current weather for a city',
        parameters: z.object({ city: z.string().describe('City name') }),
        execute: ({ city }) => `18 degrees in ${city}`,
      });
      const result = await createAgent({ tools: [weather] }).run('What is the weather in Paris?');
      expect(result.steps.length).toBeGreaterThanOrEqual(2);
      expect(result.steps[0]?.toolCalls[0]?.toolName).toBe('get_weather');
      expect(result.text).toContain('18 degrees');
      expect(result.usage.totalTokens).toBeGreaterThan(0);
    });
  });
});
