import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChatCompletionStream, updatesPerRead } from '../../../src/api/chat/chat-completion-stream.js';
import type { ChatCompletionChunk, ToolCall } from '../../../src/api/types/chat.js';
import { APIConnectionError, APIError, APIUserAbortError } from '../../../src/core/errors.js';
import { type ApiTestSetup, createApiTestSetup, sendSse } from '../../helpers/create-api-test-setup.js';
import { createChunk } from '../../helpers/create-chunk.js';
import { createUsage } from '../../helpers/create-usage.js';
import { officialExampleStream } from '../../helpers/official-example-stream.js';

const params = {
  model: 'svc-3.5-flash',
  messages: [{ role: 'user' as const, content: 'Hi' }],
  stream: true as const,
};

describe('ChatCompletionStream', () => {
  let setup: ApiTestSetup;
  beforeAll(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => {
    setup.server.requests.length = 0;
  });
  afterAll(() => setup.close());

  async function streamOf(events: unknown[]): Promise<ChatCompletionStream> {
    setup.server.setHandler((_req, res) => sendSse(res, events));
    return setup.client.chat.completions.create(params);
  }

  describe('when the service sends the official example stream', () => {
    it('should yield every chunk as sent and accumulate the completion', async () => {
      const chunks = officialExampleStream();
      const stream = await streamOf(chunks);
      const seen: ChatCompletionChunk[] = [];
      for await (const chunk of stream) seen.push(chunk);
      expect(seen).toEqual(chunks);
      const completion = await stream.finalCompletion();
      expect(completion.created).toBe(1_700_000_000);
      expect(completion.choices).toEqual([
        { index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' },
      ]);
      expect(completion.usage).toEqual(createUsage({ prompt_tokens: 8, completion_tokens: 3 }));
    });
  });

  describe('when nobody iterates', () => {
    it('should drain the stream itself in finalCompletion()', async () => {
      const stream = await streamOf(officialExampleStream());
      expect((await stream.finalCompletion()).choices[0]?.message.content).toBe('Hello!');
    });

    it('should refuse a second iteration', async () => {
      const stream = await streamOf(officialExampleStream());
      await stream.finalCompletion();
      expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
    });
  });

  describe('when a legacy model streams tool calls without index', () => {
    it('should build one call per name chunk', async () => {
      const legacy = (name: string, args: string) => ({
        id: '',
        type: '',
        function: { name, arguments: args },
      });
      const stream = await streamOf([
        createChunk({
          choices: [{ delta: { role: 'assistant', content: '' }, finish_reason: '' }],
          created: 0,
        }),
        createChunk({
          choices: [{ delta: { role: '', tool_calls: [legacy('get_weather', '')] }, finish_reason: '' }],
        }),
        createChunk({
          choices: [{ delta: { role: '', tool_calls: [legacy('', '{"')] }, finish_reason: '' }],
        }),
        createChunk({
          choices: [{ delta: { role: '', tool_calls: [legacy('', 'city":"Oslo"}')] }, finish_reason: '' }],
        }),
        createChunk({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] }),
      ]);
      const completion = await stream.finalCompletion();
      const calls = completion.choices[0]?.message.tool_calls as ToolCall[];
      expect(calls).toHaveLength(1);
      expect(calls[0]?.function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    });
  });

  describe('when n > 1, audio, reasoning and a web search arrive together', () => {
    it('should accumulate each as the service sends it', async () => {
      const results = [{ index: 1, url: 'https://example.com', title: 'Example' }];
      const stream = await streamOf([
        createChunk({
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                tool_calls: [{ id: 'ws', type: 'web_search', function: { name: 'svc_websearch', results } }],
              },
            },
            { index: 1, delta: { role: 'assistant', reasoning_content: 'alt' } },
          ],
          created: 0,
          usage: createUsage({ prompt_tokens: 0, completion_tokens: 0 }),
        }),
        createChunk({
          choices: [{ index: 0, delta: { reasoning: 'plain' } }],
          usage: createUsage({ prompt_tokens: 4, completion_tokens: 1 }),
        }),
        createChunk({
          choices: [
            { index: 0, delta: { audio: { data: Buffer.from('ab').toString('base64'), transcript: 'Hi' } } },
          ],
        }),
        createChunk({
          choices: [
            { index: 0, delta: { audio: { data: Buffer.from('c').toString('base64'), transcript: '!' } } },
          ],
        }),
        createChunk({
          choices: [{ index: 1, delta: { content: 'second' }, finish_reason: 'stop' }],
          usage: createUsage({ prompt_tokens: 4, completion_tokens: 6 }),
        }),
        createChunk({ choices: [{ index: 0, delta: {}, finish_reason: null }] }),
      ]);
      const completion = await stream.finalCompletion();
      const [first, second] = completion.choices;
      expect(first?.message.tool_calls).toEqual([
        { id: 'ws', type: 'web_search', function: { name: 'svc_websearch', results } },
      ]);
      expect(first?.message.reasoning).toBe('plain');
      expect(Buffer.from(first!.message.audio!.data, 'base64').toString()).toBe('abc');
      expect(first?.message.audio?.transcript).toBe('Hi!');
      expect(first?.finish_reason).toBeNull();
      expect(second?.message).toEqual({ role: 'assistant', content: 'second', reasoning_content: 'alt' });
      expect(completion.usage).toEqual(createUsage({ prompt_tokens: 4, completion_tokens: 6 }));
    });
  });

  describe('when iterated with updates', () => {
    it('should pair each chunk with the call position its tool-call delta went to', async () => {
      const stream = await streamOf([
        createChunk({
          choices: [
            {
              delta: {
                tool_calls: [
                  { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } },
                ],
              },
            },
          ],
        }),
        createChunk({
          choices: [
            {
              delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
              finish_reason: 'tool_calls',
            },
          ],
        }),
      ]);
      const seen = [];
      for await (const { chunk, updates } of stream.withUpdates())
        seen.push([chunk.choices[0]?.finish_reason, updates]);
      expect(seen).toEqual([
        [undefined, [{ kind: 'tool-call-start', choice: 0, callPosition: 0, id: 'call_1', name: 'f' }]],
        [
          'tool_calls',
          [
            {
              kind: 'tool-call-delta',
              choice: 0,
              callPosition: 0,
              id: 'call_1',
              name: 'f',
              argumentsDelta: '{}',
            },
            { kind: 'finish', choice: 0, finishReason: 'tool_calls' },
          ],
        ],
      ]);
      expect((await stream.finalCompletion()).choices[0]?.message.tool_calls).toHaveLength(1);
      expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
    });
  });

  describe('when the SSE bytes arrive split at random points', () => {
    it('should give the same completion for every split', async () => {
      const text = officialExampleStream()
        .map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)
        .concat('data: [DONE]\n\n')
        .join('');
      const bytes = Buffer.from(text.replace('Hel', 'Hé€'));
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
          async (cuts) => {
            const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
            setup.server.setHandler(async (_req, res) => {
              res.writeHead(200, { 'content-type': 'text/event-stream' });
              for (let i = 0; i + 1 < points.length; i++) {
                await write(res, bytes.subarray(points[i], points[i + 1]));
              }
              res.end();
            });
            const stream = await setup.client.chat.completions.create(params);
            const completion = await stream.finalCompletion();
            expect(completion.choices[0]?.message.content).toBe('Hé€lo!');
          },
        ),
        { numRuns: 25 },
      );
    });
  });

  describe('when iterated per read (updatesPerRead, the agent fast path)', () => {
    const toolStream = (): ChatCompletionChunk[] => [
      ...officialExampleStream().slice(0, -1),
      createChunk({ choices: [{ delta: { reasoning: 'thinking' } }] }),
      createChunk({
        choices: [
          {
            delta: {
              tool_calls: [
                { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } },
              ],
            },
          },
        ],
      }),
      createChunk({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] } }] }),
      createChunk({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] } }] }),
      createChunk({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] }),
    ];
    const sseBytes = (chunks: unknown[]) =>
      Buffer.from(
        chunks
          .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
          .concat('data: [DONE]\n\n')
          .join(''),
      );
    const serveSplit = (bytes: Buffer, points: number[]) =>
      setup.server.setHandler(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i + 1 < points.length; i++)
          await write(res, bytes.subarray(points[i], points[i + 1]));
        res.end();
      });

    it('should give the updates of withUpdates() in the same order, for every split of the bytes', async () => {
      const bytes = sseBytes(toolStream());
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
          async (cuts) => {
            const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
            serveSplit(bytes, points);
            const simple = await setup.client.chat.completions.create(params);
            const perChunk = [];
            for await (const { updates } of simple.withUpdates()) perChunk.push(...updates);
            serveSplit(bytes, points);
            const fast = await setup.client.chat.completions.create(params);
            const perRead = [];
            for await (const updates of updatesPerRead(fast)) perRead.push(...updates);
            expect(perRead).toEqual(perChunk);
            expect(await fast.finalCompletion()).toEqual(await simple.finalCompletion());
          },
        ),
        { numRuns: 25 },
      );
    });

    it('should hold every chunk of one read in one value', async () => {
      const chunks = toolStream();
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sseBytes(chunks));
      });
      const stream = await setup.client.chat.completions.create(params);
      const values = [];
      for await (const updates of updatesPerRead(stream)) values.push(updates);
      expect(values).toHaveLength(1);
      expect(values[0]?.at(-1)).toEqual({ kind: 'finish', choice: 0, finishReason: 'tool_calls' });
    });

    it('should yield the updates before a bad chunk of the same read, then throw', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: ${JSON.stringify(createChunk({ choices: [{ delta: { content: 'a' } }] }))}\n\ndata: {not json\n\n`,
        );
      });
      const stream = await setup.client.chat.completions.create(params);
      const iterator = updatesPerRead(stream)[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual([{ kind: 'content', choice: 0, text: 'a' }]);
      await expect(iterator.next()).rejects.toThrow(/not JSON/);
      await expect(stream.finalCompletion()).rejects.toThrow(/not JSON/);
    });
  });

  describe('when the caller stops early', () => {
    it('should reject finalCompletion() after a break', async () => {
      const stream = await streamOf(officialExampleStream());
      for await (const _chunk of stream) break;
      await expect(stream.finalCompletion()).rejects.toBeInstanceOf(APIUserAbortError);
    });

    it('should end a pending iteration with APIUserAbortError on abort()', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(createChunk({ choices: [{ delta: { content: 'a' } }] }))}\n\n`);
        // Never ends: only abort() can finish this stream.
      });
      const stream = await setup.client.chat.completions.create(params);
      const iterator = stream[Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      const pending = iterator.next();
      stream.abort();
      await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
      await expect(stream.finalCompletion()).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });

  describe('when many events arrive in one read', () => {
    it('should serve each of them, with updates, and then end at [DONE]', async () => {
      const chunks = Array.from({ length: 50 }, (_, i) =>
        createChunk({ choices: [{ delta: { content: `t${i} ` } }] }),
      );
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\ndata: {"late":1}\n\n`,
        );
      });
      const stream = await setup.client.chat.completions.create(params);
      const texts: string[] = [];
      for await (const { chunk } of stream.withUpdates()) texts.push(chunk.choices[0]?.delta.content ?? '');
      expect(texts).toEqual(chunks.map((_, i) => `t${i} `));
      const completion = await stream.finalCompletion();
      expect(completion.choices[0]?.message.content).toBe(texts.join(''));
      expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
    });
  });

  describe('when the connection is cut mid-stream', () => {
    it('should throw APIConnectionError after the chunks that arrived', async () => {
      setup.server.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify(createChunk({ choices: [{ delta: { content: 'a' } }] }))}\n\n`,
          () => {
            setTimeout(() => res.socket?.destroy(), 10);
          },
        );
      });
      const stream = await setup.client.chat.completions.create(params);
      const seen: string[] = [];
      const error = await (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })().catch((e: unknown) => e);
      expect(seen).toEqual(['a']);
      expect(error).toBeInstanceOf(APIConnectionError);
      await expect(stream.finalCompletion()).rejects.toBe(error);
    });
  });

  describe('when the stream reports an error event', () => {
    it('should throw a typed APIError with the message', async () => {
      const stream = await streamOf([
        createChunk({ choices: [{ delta: { content: 'a' } }] }),
        { error: { message: 'Output blocked by moderation', type: 'content_filter' } },
      ]);
      const error = await stream.finalCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as Error).message).toContain('Output blocked by moderation');
    });
  });
});

function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => res.write(bytes, () => resolve()));
}
