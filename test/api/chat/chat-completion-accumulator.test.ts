import { describe, expect, it } from 'vitest';
import { ChatCompletionAccumulator } from '../../../src/api/chat/chat-completion-accumulator.js';
import type { ChatCompletionChunk, ToolCall } from '../../../src/api/types/chat.js';
import { createChunk } from '../../helpers/create-chunk.js';
import { createUsage } from '../../helpers/create-usage.js';
import { officialExampleStream } from '../../helpers/official-example-stream.js';

function accumulate(chunks: ChatCompletionChunk[]) {
  const accumulator = new ChatCompletionAccumulator();
  for (const chunk of chunks) accumulator.add(chunk);
  return accumulator.snapshot();
}

describe('ChatCompletionAccumulator', () => {
  describe('when the stream follows the official example', () => {
    it('should keep the real created time, the text, "stop" and the last usage', () => {
      const completion = accumulate(officialExampleStream());
      expect(completion).toEqual({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'svc-3.5-flash',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
        usage: createUsage({ prompt_tokens: 8, completion_tokens: 3 }),
      });
    });
  });

  describe('when finish_reason is missing or "" and the last delta is {}', () => {
    it('should treat them as "not yet" and keep the final reason', () => {
      const completion = accumulate([
        createChunk({ choices: [{ delta: { content: 'a' } }] }),
        createChunk({ choices: [{ delta: { content: 'b' }, finish_reason: 'length' }] }),
        createChunk({ choices: [{ delta: {}, finish_reason: '' }] }),
        createChunk({ choices: [{ delta: {} }] }),
      ]);
      expect(completion.choices[0]?.message.content).toBe('ab');
      expect(completion.choices[0]?.finish_reason).toBe('length');
    });

    it('should leave finish_reason null when no chunk gave one', () => {
      const completion = accumulate([
        createChunk({ choices: [{ delta: { content: 'a' }, finish_reason: '' }] }),
      ]);
      expect(completion.choices[0]?.finish_reason).toBeNull();
    });
  });

  describe('when usage is cumulative', () => {
    it('should keep the last usage and never sum', () => {
      const completion = accumulate([
        createChunk({
          choices: [{ delta: { content: 'a' } }],
          usage: createUsage({ prompt_tokens: 5, completion_tokens: 1 }),
        }),
        createChunk({
          choices: [{ delta: { content: 'b' } }],
          usage: createUsage({ prompt_tokens: 5, completion_tokens: 2 }),
        }),
        createChunk({
          choices: [{ delta: {} }],
          usage: { ...createUsage({ prompt_tokens: 5, completion_tokens: 3 }), cached_tokens: 4 },
        }),
      ]);
      expect(completion.usage).toEqual({
        ...createUsage({ prompt_tokens: 5, completion_tokens: 3 }),
        cached_tokens: 4,
      });
    });
  });

  describe('when the model reasons', () => {
    it('should concatenate delta.reasoning', () => {
      const completion = accumulate([
        createChunk({ choices: [{ delta: { reasoning: 'Think' } }] }),
        createChunk({ choices: [{ delta: { reasoning: 'ing.' } }] }),
        createChunk({ choices: [{ delta: { content: 'Done' }, finish_reason: 'stop' }] }),
      ]);
      expect(completion.choices[0]?.message).toEqual({
        role: 'assistant',
        content: 'Done',
        reasoning: 'Thinking.',
      });
    });

    it('should concatenate delta.reasoning_content (alt-style) into reasoning_content', () => {
      const completion = accumulate([
        createChunk({ choices: [{ delta: { reasoning_content: 'Alt ' } }] }),
        createChunk({ choices: [{ delta: { reasoning_content: 'style' } }] }),
      ]);
      expect(completion.choices[0]?.message.reasoning_content).toBe('Alt style');
      expect(completion.choices[0]?.message.reasoning).toBeUndefined();
    });
  });

  describe('when the answer is audio', () => {
    it('should join the decoded pcm pieces and the transcript pieces', () => {
      const pieces = [Buffer.from([1, 2, 3, 4]), Buffer.from([5]), Buffer.from([6, 7])];
      const completion = accumulate([
        createChunk({
          choices: [{ delta: { audio: { data: pieces[0]!.toString('base64'), transcript: 'Hel' } } }],
        }),
        createChunk({
          choices: [{ delta: { audio: { data: pieces[1]!.toString('base64'), transcript: 'lo' } } }],
        }),
        createChunk({
          choices: [{ delta: { audio: { data: pieces[2]!.toString('base64') } }, finish_reason: null }],
        }),
      ]);
      const audio = completion.choices[0]?.message.audio;
      expect(Buffer.from(audio!.data, 'base64')).toEqual(Buffer.from([1, 2, 3, 4, 5, 6, 7]));
      expect(audio?.transcript).toBe('Hello');
      expect(completion.choices[0]?.finish_reason).toBeNull();
    });
  });

  describe('when n > 1', () => {
    it('should keep each choice by its index', () => {
      const completion = accumulate([
        createChunk({
          choices: [
            { index: 1, delta: { content: 'B' } },
            { index: 0, delta: { content: 'A' } },
          ],
        }),
        createChunk({ choices: [{ index: 0, delta: { content: '1' }, finish_reason: 'stop' }] }),
        createChunk({ choices: [{ index: 1, delta: { content: '2' }, finish_reason: 'length' }] }),
      ]);
      expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
        [0, 'A1', 'stop'],
        [1, 'B2', 'length'],
      ]);
    });
  });

  describe('when tool-call deltas carry an index', () => {
    it('should merge argument fragments by index, interleaved', () => {
      const completion = accumulate([
        createChunk({
          choices: [
            {
              delta: {
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_a',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '' },
                  },
                  {
                    index: 1,
                    id: 'call_b',
                    type: 'function',
                    function: { name: 'get_time', arguments: '{"tz"' },
                  },
                ],
              },
            },
          ],
        }),
        createChunk({
          choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } }],
        }),
        createChunk({
          choices: [{ delta: { tool_calls: [{ index: 1, id: '', function: { arguments: ':"UTC"}' } }] } }],
        }),
        createChunk({
          choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] } }],
        }),
        createChunk({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] }),
      ]);
      expect(completion.choices[0]?.message.tool_calls).toEqual([
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
      ]);
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    });
  });

  describe('when a legacy model sends deltas without index, with id "" and type ""', () => {
    it('should start a call on each name chunk and append fragments to the last open call', () => {
      const legacy = (name: string, args: string) => ({
        id: '',
        type: '',
        function: { name, arguments: args },
      });
      const completion = accumulate([
        createChunk({ choices: [{ delta: { tool_calls: [legacy('get_weather', '')] } }] }),
        createChunk({ choices: [{ delta: { tool_calls: [legacy('', '{"')] } }] }),
        createChunk({ choices: [{ delta: { tool_calls: [legacy('', 'city":"Paris"}')] } }] }),
        createChunk({ choices: [{ delta: { tool_calls: [legacy('get_time', '')] } }] }),
        createChunk({ choices: [{ delta: { tool_calls: [legacy('', '{}')] } }] }),
        createChunk({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] }),
      ]);
      const calls = completion.choices[0]?.message.tool_calls as ToolCall[];
      expect(calls.map((call) => [call.type, call.function.name, call.function.arguments])).toEqual([
        ['function', 'get_weather', '{"city":"Paris"}'],
        ['function', 'get_time', '{}'],
      ]);
      // Tool messages need an id to answer, so id-less calls get distinct made-up ones.
      expect(calls[0]?.id).toMatch(/^call_/);
      expect(calls[1]?.id).toMatch(/^call_/);
      expect(calls[0]?.id).not.toBe(calls[1]?.id);
    });

    it('should continue a call by its id when deltas have an id but no index', () => {
      const completion = accumulate([
        createChunk({
          choices: [{ delta: { tool_calls: [{ id: 'x1', function: { name: 'a', arguments: '{"q":' } }] } }],
        }),
        createChunk({
          choices: [{ delta: { tool_calls: [{ id: 'x2', function: { name: 'b', arguments: '{}' } }] } }],
        }),
        createChunk({ choices: [{ delta: { tool_calls: [{ id: 'x1', function: { arguments: '1}' } }] } }] }),
      ]);
      const calls = completion.choices[0]?.message.tool_calls as ToolCall[];
      expect(calls.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
        ['x1', 'a', '{"q":1}'],
        ['x2', 'b', '{}'],
      ]);
    });
  });

  describe('when the first chunk reports a hosted web search', () => {
    it('should keep the web_search entry apart from the function calls', () => {
      const results = [{ index: 1, url: 'https://example.com', title: 'Example', summary: 'An example' }];
      const completion = accumulate([
        createChunk({
          choices: [
            {
              delta: {
                role: 'assistant',
                tool_calls: [
                  {
                    id: 'ws1',
                    type: 'web_search',
                    function: { name: 'svc_websearch', arguments: '{}', results },
                  },
                ],
              },
            },
          ],
        }),
        createChunk({
          choices: [
            {
              delta: {
                tool_calls: [
                  { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
                ],
              },
            },
          ],
        }),
        createChunk({ choices: [{ delta: { content: 'Found it.' }, finish_reason: 'stop' }] }),
      ]);
      expect(completion.choices[0]?.message.tool_calls).toEqual([
        { id: 'ws1', type: 'web_search', function: { name: 'svc_websearch', arguments: '{}', results } },
        { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
      ]);
      expect(completion.choices[0]?.message.content).toBe('Found it.');
    });
  });

  describe('when asked for per-chunk updates', () => {
    it('should say which accumulated call each tool-call delta went to', () => {
      const accumulator = new ChatCompletionAccumulator();
      const first = accumulator.addWithUpdates(
        createChunk({
          choices: [
            {
              delta: {
                tool_calls: [
                  { id: 'ws1', type: 'web_search', function: { name: 'svc_websearch', arguments: '{}' } },
                  { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } },
                ],
              },
            },
          ],
        }),
      );
      expect(first).toEqual([
        {
          kind: 'hosted-tool-call',
          choice: 0,
          callPosition: 0,
          call: { id: 'ws1', type: 'web_search', function: { name: 'svc_websearch', arguments: '{}' } },
        },
        { kind: 'tool-call-start', choice: 0, callPosition: 1, id: 'call_1', name: 'f' },
        {
          kind: 'tool-call-delta',
          choice: 0,
          callPosition: 1,
          id: 'call_1',
          name: 'f',
          argumentsDelta: '{"a"',
        },
      ]);
      const second = accumulator.addWithUpdates(
        createChunk({
          choices: [{ delta: { content: 'x', tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }],
        }),
      );
      expect(second).toEqual([
        { kind: 'content', choice: 0, text: 'x' },
        {
          kind: 'tool-call-delta',
          choice: 0,
          callPosition: 1,
          id: 'call_1',
          name: 'f',
          argumentsDelta: ':1}',
        },
      ]);
      expect(
        accumulator.addWithUpdates(createChunk({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] })),
      ).toEqual([{ kind: 'finish', choice: 0, finishReason: 'tool_calls' }]);
    });

    it('should report reasoning and audio pieces', () => {
      const accumulator = new ChatCompletionAccumulator();
      const updates = accumulator.addWithUpdates(
        createChunk({ choices: [{ delta: { reasoning: 'r', audio: { data: 'AAA=', transcript: 't' } } }] }),
      );
      expect(updates).toEqual([
        { kind: 'reasoning', choice: 0, text: 'r' },
        { kind: 'audio', choice: 0, data: 'AAA=', transcript: 't' },
      ]);
    });
  });

  describe('when a snapshot is taken mid-stream', () => {
    it('should not change when the caller mutates it or more chunks arrive', () => {
      const accumulator = new ChatCompletionAccumulator();
      accumulator.add(
        createChunk({
          choices: [
            {
              delta: {
                tool_calls: [
                  { index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{' } },
                ],
              },
            },
          ],
        }),
      );
      const early = accumulator.snapshot();
      accumulator.add(
        createChunk({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '}' } }] } }] }),
      );
      expect((early.choices[0]!.message.tool_calls![0] as ToolCall).function.arguments).toBe('{');
      expect((accumulator.snapshot().choices[0]!.message.tool_calls![0] as ToolCall).function.arguments).toBe(
        '{}',
      );
    });
  });
});
