import { describe, expect, it } from 'vitest';
import { collect } from '../../helpers/collect.js';
import { callDelta, createChunk } from '../../helpers/create-chunk.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { createUsage } from '../../helpers/create-usage.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when the model sends reasoning', () => {
    it('should emit reasoning-delta and send `reasoning` back as it came', async () => {
      env.emu.script([
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({ delta: { role: '', reasoning: 'Think ' } }),
            createChunk({ delta: { role: '', reasoning: 'hard.' } }),
            createChunk({ delta: { role: '', content: 'Answer' }, finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Again' } },
      ]);
      const agent = createTestAgent(env);
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
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({ delta: { role: '', reasoning_content: 'Alt thought.' } }),
            createChunk({ delta: { role: '', content: 'A' }, finish_reason: 'stop' }),
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
      const agent = createTestAgent(env, { modelSettings: { reasoning_format: 'alt-style' } });
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
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({ delta: { role: '', reasoning: 'Need the weather.' } }),
            createChunk({
              delta: callDelta({
                index: 0,
                id: 'call_w',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":' },
              }),
            }),
            createChunk({
              delta: callDelta({ index: 0, function: { arguments: '"Oslo"}' } }),
              usage: createUsage({ prompt_tokens: 10, completion_tokens: 5 }),
            }),
            createChunk({
              delta: { role: '', content: '' },
              finish_reason: 'tool_calls',
              usage: createUsage({ prompt_tokens: 10, completion_tokens: 6 }),
            }),
          ],
        },
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: 'Cold ' } }),
            createChunk({
              delta: { role: '', content: 'in Oslo.' },
              finish_reason: 'stop',
              usage: createUsage({ prompt_tokens: 20, completion_tokens: 4 }),
            }),
          ],
        },
      ]);
      const result = await createTestAgent(env, { tools: [weather.tool] }).run('Weather?', { stream: true });

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
            createChunk({
              delta: { role: 'assistant', content: '' },
              usage: createUsage({ prompt_tokens: 0, completion_tokens: 0 }),
            }),
            createChunk({
              delta: callDelta({
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":' },
              }),
              usage: createUsage({ prompt_tokens: 10, completion_tokens: 2 }),
            }),
            createChunk({
              delta: callDelta({ index: 0, function: { arguments: '"Paris"}' } }),
              usage: createUsage({ prompt_tokens: 10, completion_tokens: 4, cached_tokens: 3 }),
            }),
            createChunk({
              delta: { role: '' },
              finish_reason: 'tool_calls',
              usage: createUsage({ prompt_tokens: 10, completion_tokens: 5, cached_tokens: 3 }),
            }),
          ],
        },
        {
          chunks: [
            createChunk({
              delta: { role: 'assistant', content: '' },
              usage: createUsage({ prompt_tokens: 0, completion_tokens: 0 }),
            }),
            createChunk({
              delta: { role: '', content: 'Sunny ' },
              usage: createUsage({ prompt_tokens: 20, completion_tokens: 1 }),
            }),
            createChunk({
              delta: { role: '', content: 'today.' },
              finish_reason: 'stop',
              usage: createUsage({ prompt_tokens: 20, completion_tokens: 3 }),
            }),
          ],
        },
      ]);
      const stream = createTestAgent(env, { tools: [weather.tool] }).stream('Paris?');
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
      const stream = createTestAgent(env, { tools: [weather.tool] }).stream('Paris?', { stream: false });
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

  describe('when an audio model streams audio', () => {
    it('should emit audio-delta events and send the transcript back as content', async () => {
      env.emu.script([
        {
          chunks: [
            createChunk({ delta: { role: 'assistant', content: '' } }),
            createChunk({ delta: { role: '', audio: { data: 'AAAA', transcript: 'Hel' } } }),
            createChunk({ choices: [{ delta: { role: '', audio: { data: 'BBBB', transcript: 'lo' } } }] }),
          ],
        },
      ]);
      const stream = createTestAgent(env, {
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
});
