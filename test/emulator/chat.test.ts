import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/api/types/chat.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { readAudioDuration } from '../../src/emulator/media/audio-duration.js';
import { callEmulator, sseData, upload } from '../helpers/call-emulator.js';
import { wavOfSeconds } from '../helpers/media-bytes.js';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const timeTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Local time of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('emulator chat completions', () => {
  let emu: Emulator;
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    callEmulator(emu.baseURL, emu.apiKey, 'POST', path, body, headers);
  const chunksOf = (text: string) =>
    sseData(text)
      .filter((d) => d !== '[DONE]')
      .map((d) => JSON.parse(d) as ChatCompletionChunk);

  beforeAll(async () => {
    emu = await startEmulator({ parseDelayMs: 0 });
  });
  afterAll(() => emu.close());

  describe('when streaming', () => {
    it('should follow the observed shape: first chunk, role "", cumulative usage, stop, [DONE]', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        stream: true,
        messages: [{ role: 'user', content: 'one two three four five six seven' }],
      });
      expect(res.headers['content-type']).toContain('text/event-stream');
      expect(sseData(res.text).at(-1)).toBe('[DONE]');
      const chunks = chunksOf(res.text);
      const [first, ...rest] = chunks;
      expect(first).toMatchObject({
        object: 'chat.completion.chunk',
        created: 0,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: '' }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
      expect(rest.length).toBeGreaterThan(2);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
      for (const chunk of rest) expect(chunk.choices[0]?.delta.role).toBe('');
      expect(rest.slice(0, -1).every((c) => c.choices[0]?.finish_reason === '')).toBe(true);
      expect(rest.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      const completions = rest.map((c) => c.usage?.completion_tokens ?? -1);
      expect(completions).toEqual([...completions].sort((a, b) => a - b));
      const text = rest.map((c) => c.choices[0]?.delta.content ?? '').join('');
      const plain = (await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        messages: [{ role: 'user', content: 'one two three four five six seven' }],
      }).then((r) => r.json())) as unknown as ChatCompletion;
      expect(text).toBe(plain.choices[0]?.message.content);
      // The repeated prompt is served from the prompt cache the second time: all else is equal.
      expect(rest.at(-1)?.usage).toEqual({ ...plain.usage, cached_tokens: undefined });
      expect(plain.usage?.cached_tokens).toBe(plain.usage?.prompt_tokens);
    });

    it('should stream tool calls with index, id on the first fragment, split arguments, tool_calls finish', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        stream: true,
        messages: [{ role: 'user', content: 'What is the weather and the time in Rome?' }],
        tools: [weatherTool, timeTool],
      });
      const deltas = chunksOf(res.text).flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      const byIndex = new Map<number, string>();
      for (const d of deltas)
        byIndex.set(d.index ?? -1, (byIndex.get(d.index ?? -1) ?? '') + (d.function?.arguments ?? ''));
      expect([...byIndex.keys()]).toEqual([0, 1]);
      expect(JSON.parse(byIndex.get(0) ?? '')).toEqual({ city: 'Rome' });
      expect(deltas.filter((d) => d.id).map((d) => d.function?.name)).toEqual(['get_weather', 'get_time']);
      expect(deltas.filter((d) => d.index === 0).length).toBeGreaterThan(2);
      expect(chunksOf(res.text).at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    });

    it('should stream legacy tool deltas (no index, empty id and type) for svc-1-8k', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1-8k',
        stream: true,
        messages: [{ role: 'user', content: 'weather in Oslo' }],
        tools: [weatherTool],
      });
      const deltas = chunksOf(res.text).flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      expect(deltas[0]).toEqual({ id: '', type: '', function: { name: 'get_weather', arguments: '' } });
      expect(deltas.every((d) => d.index === undefined && d.id === '')).toBe(true);
    });
  });

  describe('when the model reasons', () => {
    it('should put reasoning in reasoning, or in reasoning_content with alt-style', async () => {
      const general = (await post('/v1/chat/completions', {
        model: 'svc-3.7-flash',
        messages: [{ role: 'user', content: 'hi' }],
      }).then((r) => r.json())) as unknown as ChatCompletion;
      expect(general.choices[0]?.message.reasoning).toContain('hi');
      const alt = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        reasoning_effort: 'high',
        reasoning_format: 'alt-style',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const chunks = chunksOf(alt.text);
      const firstReasoning = chunks.findIndex((c) => c.choices[0]?.delta.reasoning_content);
      const firstContent = chunks.findIndex((c) => c.choices[0]?.delta.content);
      expect(firstReasoning).toBeGreaterThan(0);
      expect(firstContent).toBeGreaterThan(firstReasoning);
      expect(chunks.some((c) => c.choices[0]?.delta.reasoning)).toBe(false);
    });
  });

  describe('when tool results come back', () => {
    it('should answer with a sentence using them', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        messages: [
          { role: 'user', content: 'weather in Rome' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"temperature":21,"sky":"sunny"}' },
        ],
        tools: [weatherTool],
      });
      const content = res.json<ChatCompletion>().choices[0]?.message.content;
      expect(content).toBe('The weather in Rome: temperature 21, sky sunny.');
    });
  });

  describe('when JSON output is requested', () => {
    it('should return JSON valid for the json_schema', async () => {
      const schema = {
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 0 },
          tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
          mood: { enum: ['happy', 'sad'] },
          address: { $ref: '#/$defs/address' },
        },
        required: ['name', 'age', 'tags', 'mood', 'address'],
        $defs: {
          address: {
            type: 'object',
            properties: { zip: { type: 'string', maxLength: 5 } },
            required: ['zip'],
          },
        },
      };
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'Alice is 31 and sad' }],
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema } },
      });
      const value = JSON.parse(res.json<ChatCompletion>().choices[0]?.message.content ?? '');
      expect(value).toMatchObject({ name: 'Alice', age: 31, mood: 'sad' });
      expect(value.tags).toHaveLength(2);
      expect(value.address.zip.length).toBeLessThanOrEqual(5);
    });

    it('should return a JSON object in json_object mode', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.7-flash',
        messages: [{ role: 'user', content: 'hello' }],
        response_format: { type: 'json_object' },
      });
      expect(JSON.parse(res.json<ChatCompletion>().choices[0]?.message.content ?? '')).toHaveProperty(
        'answer',
      );
    });
  });

  describe('when the web_search tool is sent', () => {
    it('should report a web_search call without index in the first chunk', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.7-flash',
        stream: true,
        messages: [{ role: 'user', content: 'latest news' }],
        tools: [{ type: 'web_search', function: { description: 'search' } }],
      });
      const first = chunksOf(res.text)[0];
      expect(first?.choices[0]?.delta.tool_calls).toEqual([
        expect.objectContaining({
          type: 'web_search',
          function: expect.objectContaining({ name: 'svc_websearch', results: [] }),
        }),
      ]);
      expect(first?.choices[0]?.delta.tool_calls?.[0]).not.toHaveProperty('index');
    });
  });

  describe('when an audio model answers with audio', () => {
    it('should return a wav with transcript, null finish reason and null usage details', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-audio-2',
        modalities: ['text', 'audio'],
        audio: { voice: 'qingchunshaonv', format: 'wav' },
        messages: [{ role: 'user', content: 'Say something' }],
      });
      const choice = res.json<ChatCompletion>().choices[0];
      expect(choice?.finish_reason).toBeNull();
      expect(choice?.message.audio?.transcript).toContain('demo model');
      const wav = Buffer.from(choice?.message.audio?.data ?? '', 'base64');
      expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
      expect(wav.readUInt32LE(24)).toBe(24_000);
      expect(readAudioDuration(wav)).toBeGreaterThan(0.5);
      expect(res.json<ChatCompletion>().usage?.completion_tokens_details).toBeNull();
    });

    it('should stream base64 pcm pieces with transcript pieces', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-audio-2-mini',
        stream: true,
        modalities: ['text', 'audio'],
        audio: { voice: 'wenrounansheng', format: 'pcm' },
        messages: [{ role: 'user', content: 'Say something' }],
      });
      const audio = chunksOf(res.text)
        .map((c) => c.choices[0]?.delta.audio)
        .filter(Boolean);
      expect(audio.length).toBeGreaterThan(1);
      const pcm = Buffer.concat(audio.map((a) => Buffer.from(a?.data ?? '', 'base64')));
      expect(pcm.length % 2).toBe(0);
      expect(pcm.length).toBeGreaterThan(24_000);
      expect(audio.map((a) => a?.transcript).join('')).toContain('demo model');
    });

    it('should refuse wav when streaming and unknown voices', async () => {
      const wavStream = await post('/v1/chat/completions', {
        model: 'svc-audio-2',
        stream: true,
        modalities: ['text', 'audio'],
        audio: { voice: 'qingchunshaonv', format: 'wav' },
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(wavStream.status).toBe(400);
      expect(wavStream.json()).toMatchObject({ error: { type: 'request_params_invalid' } });
      expect(wavStream.text).toContain('audio.format');
      const voice = await post('/v1/chat/completions', {
        model: 'svc-1o-audio',
        modalities: ['text', 'audio'],
        audio: { voice: 'voice-unknown', format: 'wav' },
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(voice.status).toBe(400);
      expect(voice.text).toContain('audio.voice');
    });
  });

  describe('when the request breaks a rule', () => {
    it.each([
      [{ model: 'svc-3.5-flash' }, 'messages'],
      [{ model: 'svc-3.5-flash', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
      [{ model: 'svc-1x-medium', messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: 'svc-router-v1', messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: 'svc-3.5-flash', temperature: 3, messages: [{ role: 'user', content: 'x' }] }, 'temperature'],
    ])('should answer 400 request_params_invalid naming the field (%#)', async (body, field) => {
      const res = await post('/v1/chat/completions', body);
      expect(res.status).toBe(400);
      expect(res.json<{ error: { type: string; message: string } }>().error.type).toBe(
        'request_params_invalid',
      );
      expect(res.json<{ error: { message: string } }>().error.message).toContain(field);
    });

    it('should answer 400 for a non-JSON body', async () => {
      const res = await post('/v1/chat/completions', '{not json');
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({
        error: {
          message: 'body: not valid JSON',
          type: 'request_params_invalid',
          code: 'request_params_invalid',
        },
      });
    });

    it('should answer 400 for a retrieval tool on an unknown store', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'retrieval', function: { name: 'kb', options: { vector_store_id: '123' } } }],
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('tools[0].function.options.vector_store_id');
    });
  });

  describe('when a video part is sent', () => {
    it('should answer any http(s) address, whatever its path ends in, and refuse other schemes', async () => {
      const video = (url: string) => ({
        model: 'svc-1o-turbo-vision',
        messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url } }] }],
      });
      const signed = await post('/v1/chat/completions', video('https://cdn.example.com/v/7f3a9c?sig=1'));
      expect(signed.status).toBe(200);
      const local = await post('/v1/chat/completions', video('file:///tmp/clip.mp4'));
      expect(local.status).toBe(400);
      expect(local.text).toContain('video_url.url');
    });
  });

  describe('when using the plan channel', () => {
    it('should serve svc-router-v1 and refuse image input and web_search with unsupported_content_type', async () => {
      const ok = await post('/svc_plan/v1/chat/completions', {
        model: 'svc-router-v1',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(ok.status).toBe(200);
      const image = await post('/svc_plan/v1/chat/completions', {
        model: 'svc-router-v1',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        ],
      });
      expect(image.status).toBe(400);
      expect(image.json()).toMatchObject({ error: { type: 'unsupported_content_type' } });
      const search = await post('/svc_plan/v1/chat/completions', {
        model: 'svc-router-v1',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'web_search', function: { description: 'x' } }],
      });
      expect(search.json()).toMatchObject({ error: { type: 'unsupported_content_type' } });
      const other = await post('/svc_plan/v1/chat/completions', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(other.json()).toMatchObject({ error: { type: 'request_params_invalid' } });
    });
  });

  describe('when max_tokens and stop apply', () => {
    it('should cut the answer with finish_reason length', async () => {
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-turbo-vision',
        max_tokens: 3,
        messages: [{ role: 'user', content: 'a long question about many things' }],
      });
      const body = res.json<ChatCompletion>();
      expect(body.choices[0]?.finish_reason).toBe('length');
      expect(body.usage?.completion_tokens).toBe(3);
    });
  });

  describe('when retrieval is used', () => {
    it('should answer from the best passage and name its file', async () => {
      const a = await upload(
        emu.baseURL,
        emu.apiKey,
        'Herons eat fish and frogs in shallow water.',
        'retrieval-text',
        'herons.txt',
      );
      const b = await upload(
        emu.baseURL,
        emu.apiKey,
        'Owls hunt mice at night with silent wings.',
        'retrieval-text',
        'owls.txt',
      );
      const store = (await post('/v1/vector_stores', { name: 'birds' })).json<{ id: string }>();
      await post(`/v1/vector_stores/${store.id}/files`, {
        files: [{ file_id: a.json<{ id: string }>().id }, { file_id: b.json<{ id: string }>().id }],
      });
      const res = await post('/v1/chat/completions', {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: 'What do owls hunt?' }],
        tools: [{ type: 'retrieval', function: { name: 'birds', options: { vector_store_id: store.id } } }],
      });
      const content = res.json<ChatCompletion>().choices[0]?.message.content ?? '';
      expect(content).toContain('owls.txt');
      expect(content).toContain('mice');
      expect(content.startsWith('According to owls.txt')).toBe(true);
    });
  });

  describe('when voices are used by svc-1o-audio', () => {
    it('should accept a cloned voice id', async () => {
      const file = await upload(emu.baseURL, emu.apiKey, wavOfSeconds(6), 'storage', 'me.wav');
      const voice = await post('/v1/audio/voices', {
        model: 'svc-tts-2',
        file_id: file.json<{ id: string }>().id,
      });
      const res = await post('/v1/chat/completions', {
        model: 'svc-1o-audio',
        modalities: ['text', 'audio'],
        audio: { voice: voice.json<{ id: string }>().id, format: 'wav' },
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(res.status).toBe(200);
    });
  });
});
