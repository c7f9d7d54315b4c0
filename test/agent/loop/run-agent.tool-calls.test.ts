import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ToolMessage } from '../../../src/api/types/chat.js';
import { collect } from '../../helpers/collect.js';
import { callDelta, createChunk } from '../../helpers/create-chunk.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when two parallel calls interleave their argument fragments in the stream', () => {
    it('should run both with their own arguments, in parallel, and answer in call order', async () => {
      const order: string[] = [];
      const slow = (name: string) => async () => {
        order.push(`start ${name}`);
        // Slow tools, so that calls running in parallel overlap.
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`end ${name}`);
        return `${name} done`;
      };
      const weather = createRecordingTool('get_weather', { execute: slow('weather') });
      const time = createRecordingTool('get_time', { execute: slow('time') });
      env.emu.script([
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({
              delta: callDelta({
                index: 0,
                id: 'call_a',
                type: 'function',
                function: { name: 'get_weather', arguments: '' },
              }),
            }),
            createChunk({
              delta: callDelta({
                index: 1,
                id: 'call_b',
                type: 'function',
                function: { name: 'get_time', arguments: '' },
              }),
            }),
            createChunk({ delta: callDelta({ index: 0, function: { arguments: '{"city":' } }) }),
            createChunk({ delta: callDelta({ index: 1, function: { arguments: '{"zone": "UTC"' } }) }),
            createChunk({ delta: callDelta({ index: 0, function: { arguments: '"Paris"}' } }) }),
            createChunk({
              delta: callDelta({ index: 1, function: { arguments: '}' } }),
              finish_reason: 'tool_calls',
            }),
          ],
        },
        { message: { content: 'Both done.' } },
      ]);
      const stream = createTestAgent(env, { tools: [weather.tool, time.tool] }).stream('Weather and time?');
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
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({
              delta: callDelta({
                index: 0,
                id: 'q1',
                type: 'function',
                function: { name: 'search', arguments: '{"query":"x"}' },
              }),
            }),
            createChunk({ delta: callDelta({ index: 0, function: { arguments: '' } }) }),
            // Not how JSON grows, but a partial-JSON parser would already have run {"query":"x"}.
            createChunk({ delta: { role: '', content: '' } }),
            createChunk({
              delta: callDelta({ index: 0, function: { arguments: ' ' } }),
              finish_reason: 'tool_calls',
            }),
          ],
        },
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({
              delta: callDelta({
                index: 0,
                id: 'q2',
                type: 'function',
                function: { name: 'search', arguments: '{"query":"x"' },
              }),
            }),
            createChunk({
              delta: callDelta({ index: 0, function: { arguments: ',"limit":5}' } }),
              finish_reason: 'tool_calls',
            }),
          ],
        },
        { message: { content: 'found' } },
      ]);
      const stream = createTestAgent(env, { tools: [search.tool] }).stream('find x');
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
        // Slow tools, so that the order of starts and ends shows the concurrency limit.
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
      await createTestAgent(env, { tools: [a.tool, b.tool], toolConcurrency: 1 }).run('x');
      expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
    });
  });

  describe('when a turn asks for more calls than toolConcurrency allows', () => {
    it('should run at most 8 at a time by default and answer in call order, not completion order', async () => {
      const stats = { inFlight: 0, maxInFlight: 0 };
      const work = createRecordingTool('work', {
        execute: async (args) => {
          const n = args.n as number;
          stats.inFlight++;
          stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
          // Later calls finish first, so completion order is not call order.
          await new Promise((resolve) => setTimeout(resolve, 40 - 2 * n));
          stats.inFlight--;
          return `done ${n}`;
        },
      });
      const calls = Array.from({ length: 20 }, (_, n) => ({
        id: `call_${n}`,
        function: { name: 'work', arguments: JSON.stringify({ n }) },
      }));
      env.emu.script([{ message: { content: '', tool_calls: calls } }, { message: { content: 'ok' } }]);
      await createTestAgent(env, { tools: [work.tool] }).run('x');
      expect(stats.maxInFlight).toBe(8);
      const toolMessages = (chatRequests(env.emu)[1]!.messages as ToolMessage[]).filter(
        (message) => message.role === 'tool',
      );
      expect(toolMessages.map((message) => [message.tool_call_id, message.content])).toEqual(
        calls.map((call, n) => [call.id, `done ${n}`]),
      );
    });
  });

  describe('when a legacy model streams deltas without index and with empty ids', () => {
    it('should give the call one generated id used in events, the assistant message and the tool message', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({
              delta: callDelta({ id: '', type: '', function: { name: 'get_weather', arguments: '' } }),
            }),
            createChunk({ delta: callDelta({ id: '', type: '', function: { name: '', arguments: '{"' } }) }),
            createChunk({
              delta: callDelta({ id: '', type: '', function: { name: '', arguments: 'city":"Oslo"}' } }),
            }),
            // A tool turn that says "stop", as the service documents.
            createChunk({ delta: { role: '', content: '' }, finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Cold.' } },
      ]);
      const stream = createTestAgent(env, { tools: [weather.tool] }).stream('Oslo?');
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
      const result = await createTestAgent(env, { tools: [weather.tool] }).run('Rome?');
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
      const agent = createTestAgent(env, {
        tools: [weather.tool],
        _internal: { generateId: () => `gen_${++n}` },
      });
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
});
