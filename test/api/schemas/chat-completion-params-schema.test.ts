import { describe, expect, it } from 'vitest';
import {
  chatCompletionParamsSchema,
  validateChatCompletionParams,
} from '../../../src/api/schemas/chat-completion-params-validator.js';
import type { ChatCompletionCreateParams } from '../../../src/api/types/chat.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

const createParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'svc-3.5-flash',
  messages: [{ role: 'user', content: 'Hello' }],
  ...overrides,
});

const userWith = (...parts: unknown[]) => ({ messages: [{ role: 'user', content: parts }] });
const pngDataUri = 'data:image/png;base64,iVBORw0KGgo=';

describe('validateChatCompletionParams', () => {
  describe('when the request is valid', () => {
    it('should pass a full conversation with every role and part type', () => {
      const params: ChatCompletionCreateParams = {
        model: 'svc-3.5-flash',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in these?' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
              { type: 'image_url', image_url: { url: pngDataUri } },
              { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } },
              { type: 'input_audio', input_audio: { data: 'data:audio/wav;base64,UklGRg==' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }],
          },
          { role: 'tool', content: 'a cat', tool_call_id: 'call_1' },
        ],
        temperature: 0,
        top_p: 1,
        n: 2,
        max_tokens: 1000,
        stop: ['END'],
        frequency_penalty: 1,
        stream: false,
        reasoning_format: 'alt-style',
        reasoning_effort: 'medium',
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } },
      };
      expect(() => validateChatCompletionParams(params)).not.toThrow();
    });

    it('should pass an unknown model id with every model-specific feature', () => {
      const params = createParams({
        model: 'svc-9-future',
        modalities: ['text', 'audio'],
        reasoning_effort: 'medium',
        response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } },
        max_tokens: 10_000_000,
      });
      expect(() => validateChatCompletionParams(params)).not.toThrow();
    });

    it('should pass tools for a model the spec does not list as supporting tools', () => {
      const params = createParams({
        model: 'svc-1-8k',
        tools: [
          {
            type: 'function',
            function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
          },
        ],
      });
      expect(() => validateChatCompletionParams(params)).not.toThrow();
    });

    it('should pass audio output with pcm while streaming, and wav without streaming', () => {
      const audio = { modalities: ['text', 'audio'], model: 'svc-audio-2' };
      expect(() =>
        validateChatCompletionParams(
          createParams({ ...audio, stream: true, audio: { voice: 'wenrounansheng', format: 'pcm' } }),
        ),
      ).not.toThrow();
      expect(() =>
        validateChatCompletionParams(
          createParams({ ...audio, stream: false, audio: { voice: 'wenrounansheng', format: 'wav' } }),
        ),
      ).not.toThrow();
    });

    it('should ignore fields the spec does not name, like stream_options', () => {
      expect(() =>
        validateChatCompletionParams(createParams({ stream: true, stream_options: { include_usage: true } })),
      ).not.toThrow();
    });
  });

  describe('when the body itself is wrong', () => {
    it('should say the body must be an object', () => {
      expect(issueLinesOf(() => validateChatCompletionParams(null))).toEqual(['request: must be an object']);
    });

    it('should name missing model and messages, and refuse an empty messages array', () => {
      expect(issueLinesOf(() => validateChatCompletionParams({}))).toEqual([
        'model: required',
        'messages: required',
      ]);
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages: [] })))).toEqual([
        'messages: must contain at least one message',
      ]);
    });

    it('should carry the operation and the request_params_invalid code', () => {
      const error = validationErrorOf(() => validateChatCompletionParams(createParams({ temperature: 9 })));
      expect(error.operation).toBe('chat.completions.create');
      expect(error.code).toBe('request_params_invalid');
      expect(error.issues).toEqual([
        { path: 'temperature', message: 'must be between 0 and 2', code: 'request_params_invalid' },
      ]);
    });
  });

  describe('when a message breaks its role rules', () => {
    it('should refuse an unknown or missing role', () => {
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(
          createParams({ messages: [{ role: 'developer', content: 'x' }, { content: 'y' }] }),
        ),
      );
      expect(lines).toEqual([
        'messages[0].role: must be one of "system", "user", "assistant" or "tool"',
        'messages[1].role: required, must be one of "system", "user", "assistant" or "tool"',
      ]);
    });

    it('should require tool_call_id for role "tool"', () => {
      const messages = [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', content: 'result' },
      ];
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages })))).toEqual([
        'messages[2].tool_call_id: required for role "tool"',
      ]);
    });

    it('should require tool_call_id to name a call of the preceding assistant message', () => {
      const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
      const messages = [
        { role: 'user', content: 'x' },
        { role: 'tool', content: 'orphan', tool_call_id: 'call_0' },
        { role: 'assistant', content: '', tool_calls: [call('call_1'), call('call_2')] },
        { role: 'tool', content: 'one', tool_call_id: 'call_1' },
        { role: 'tool', content: 'two', tool_call_id: 'call_2' },
        { role: 'tool', content: 'typo', tool_call_id: 'call_3' },
        { role: 'assistant', content: 'done' },
        { role: 'tool', content: 'late', tool_call_id: 'call_1' },
      ];
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages })))).toEqual([
        'messages[1].tool_call_id: must follow an assistant message whose tool_calls include this id',
        'messages[5].tool_call_id: "call_3" is not a tool call id of the preceding assistant message',
        'messages[7].tool_call_id: the preceding assistant message has no tool_calls to answer',
      ]);
    });

    it('should require string content for system and tool messages', () => {
      const messages = [
        { role: 'system', content: 5 },
        { role: 'tool', content: null, tool_call_id: 'c' },
      ];
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages })))).toEqual([
        'messages[0].content: must be a string',
        'messages[1].content: must be a string',
      ]);
    });

    it('should accept assistant content null without tool_calls, as the spec types it "string or null"', () => {
      const messages = [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: null },
      ];
      expect(() => validateChatCompletionParams(createParams({ messages }))).not.toThrow();
    });

    it('should require a name and arguments on an echoed function call', () => {
      const messages = [
        { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: {} }] },
      ];
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages })))).toEqual([
        'messages[0].tool_calls[0].function.name: required for a function call',
        'messages[0].tool_calls[0].function.arguments: required for a function call',
      ]);
    });

    it('should accept an echoed hosted web_search call and a legacy empty call id', () => {
      const messages = [
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'ws', type: 'web_search', function: { name: 'svc_websearch', results: [] } },
            { id: '', type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        },
        { role: 'tool', content: 'ok', tool_call_id: '' },
      ];
      expect(() => validateChatCompletionParams(createParams({ messages }))).not.toThrow();
    });

    it('should refuse user content that is neither text nor a non-empty part list', () => {
      const messages = [
        { role: 'user', content: 5 },
        { role: 'user', content: [] },
      ];
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ messages })))).toEqual([
        'messages[0].content: must be a string or an array of parts',
        'messages[1].content: must not be an empty array',
      ]);
    });
  });

  describe('when a user part breaks its rules', () => {
    it('should refuse an unknown part type and a text part without text', () => {
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(createParams(userWith({ type: 'file', file: {} }, { type: 'text' }))),
      );
      expect(lines).toEqual([
        'messages[0].content[0].type: must be one of "text", "image_url", "video_url" or "input_audio"',
        'messages[0].content[1].text: required',
      ]);
    });

    it('should refuse image addresses that are neither http(s) nor an image data URI', () => {
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(
          createParams(
            userWith(
              { type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } },
              { type: 'image_url', image_url: { url: 'data:image/png,notbase64' } },
            ),
          ),
        ),
      );
      expect(lines).toEqual([
        'messages[0].content[0].image_url.url: must be an http(s) address or a data:image/<jpg|jpeg|png|webp|gif>;base64,... URI',
        'messages[0].content[1].image_url.url: must be a base64 data URI data:image/<jpg|jpeg|png|webp|gif>;base64,...',
      ]);
    });

    it('should refuse image formats the spec does not list, and accept jpg, jpeg, webp and gif', () => {
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(
            createParams(userWith({ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } })),
          ),
        ),
      ).toEqual([
        'messages[0].content[0].image_url.url: image/bmp is not supported; use data:image/<jpg|jpeg|png|webp|gif>;base64,...',
      ]);
      for (const format of ['jpg', 'jpeg', 'webp', 'gif']) {
        const part = { type: 'image_url', image_url: { url: `data:image/${format};base64,AAAA` } };
        expect(() => validateChatCompletionParams(createParams(userWith(part)))).not.toThrow();
      }
    });

    it('should refuse an empty data URI payload and an unknown detail', () => {
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(
          createParams(
            userWith(
              { type: 'image_url', image_url: { url: 'data:image/png;base64,' } },
              { type: 'image_url', image_url: { url: pngDataUri, detail: 'auto' } },
            ),
          ),
        ),
      );
      expect(lines).toEqual([
        'messages[0].content[0].image_url.url: must carry base64 data after "base64,"',
        'messages[0].content[1].image_url.detail: must be "low" or "high"',
      ]);
    });

    it('should accept only mp3 and wav audio data URIs', () => {
      const audio = (data: string) => ({ type: 'input_audio', input_audio: { data } });
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(
            createParams(userWith(audio('data:audio/ogg;base64,T2dn'), audio('https://example.com/a.mp3'))),
          ),
        ),
      ).toEqual([
        'messages[0].content[0].input_audio.data: audio/ogg is not supported; use data:audio/<mp3|wav>;base64,...',
        'messages[0].content[1].input_audio.data: must be a base64 data URI data:audio/<mp3|wav>;base64,...',
      ]);
      expect(() =>
        validateChatCompletionParams(createParams(userWith(audio('data:audio/mp3;base64,SUQz')))),
      ).not.toThrow();
    });

    it('should accept only http(s) video addresses', () => {
      const lines = issueLinesOf(() =>
        validateChatCompletionParams(
          createParams(userWith({ type: 'video_url', video_url: { url: 'data:video/mp4;base64,AAAA' } })),
        ),
      );
      expect(lines).toEqual([
        'messages[0].content[0].video_url.url: must be an http(s) address of an mp4 video',
      ]);
    });

    it('should accept any http(s) video address, whatever its path ends in', () => {
      const video = (url: string) => userWith({ type: 'video_url', video_url: { url } });
      for (const url of [
        'https://e.com/clip.MP4?sig=abc',
        'https://cdn.example.com/videos/7f3a9c?token=abc',
        'http://e.com/stream',
      ]) {
        expect(() => validateChatCompletionParams(createParams(video(url))), url).not.toThrow();
      }
    });
  });

  describe('when a sampling parameter is out of range', () => {
    it.each([
      ['temperature', 2.5, 'temperature: must be between 0 and 2'],
      ['temperature', -0.1, 'temperature: must be between 0 and 2'],
      ['temperature', '1', 'temperature: must be a number between 0 and 2'],
      ['top_p', 1.5, 'top_p: must be between 0 and 1'],
      ['frequency_penalty', 1.1, 'frequency_penalty: must be between 0 and 1'],
      ['frequency_penalty', -1, 'frequency_penalty: must be between 0 and 1'],
      ['n', 0, 'n: must be a positive integer'],
      ['n', 1.5, 'n: must be a positive integer'],
      ['max_tokens', 0, 'max_tokens: must be a positive integer'],
      ['max_tokens', 10.5, 'max_tokens: must be a positive integer'],
      ['stop', 5, 'stop: must be a string or an array of strings'],
      ['stop', ['a', 1], 'stop[1]: must be a string'],
      ['stream', 'yes', 'stream: must be a boolean'],
    ])('should refuse %s = %j', (field, value, line) => {
      expect(issueLinesOf(() => validateChatCompletionParams(createParams({ [field]: value })))).toEqual([
        line,
      ]);
    });

    it('should accept the bounds themselves', () => {
      const params = createParams({
        temperature: 2,
        top_p: 0,
        frequency_penalty: 0,
        n: 1,
        max_tokens: 1,
        stop: 'x',
      });
      expect(() => validateChatCompletionParams(params)).not.toThrow();
    });
  });

  describe('when audio output or modalities are wrong', () => {
    it('should refuse wav while streaming', () => {
      const params = createParams({
        model: 'svc-audio-2',
        modalities: ['text', 'audio'],
        stream: true,
        audio: { voice: 'wenrounansheng', format: 'wav' },
      });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'audio.format: "wav" is allowed only when stream is not true; use "pcm" for streaming',
      ]);
    });

    it('should require modalities for end-to-end audio models, and audio with "audio"', () => {
      expect(
        issueLinesOf(() => validateChatCompletionParams(createParams({ model: 'svc-audio-2-mini' }))),
      ).toEqual([
        'modalities: required for the end-to-end model svc-audio-2-mini: ["text"], or ["text", "audio"] to hear the answer',
      ]);
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(createParams({ model: 'svc-1o-audio', modalities: ['audio'] })),
        ),
      ).toEqual(['audio: required when modalities include "audio": { voice, format }']);
      expect(() =>
        validateChatCompletionParams(createParams({ model: 'svc-3.5-flash', modalities: undefined })),
      ).not.toThrow();
    });

    it('should accept only the preset voices for the svc-audio-2 models, any voice id for svc-1o-audio', () => {
      const withVoice = (model: string, voice: string) =>
        createParams({ model, modalities: ['text', 'audio'], audio: { voice, format: 'pcm' }, stream: true });
      expect(issueLinesOf(() => validateChatCompletionParams(withVoice('svc-audio-2', 'alloy')))).toEqual([
        'audio.voice: must be a preset voice of svc-audio-2: "wenrounansheng", "qingchunshaonv", "livelybreezy-female" or "elegantgentle-female"',
      ]);
      expect(() => validateChatCompletionParams(withVoice('svc-1o-audio', 'voice-tone-1'))).not.toThrow();
    });

    it('should require a voice and a pcm or wav format', () => {
      const params = createParams({ audio: { format: 'mp3' } });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'audio.voice: required',
        'audio.format: must be "pcm" or "wav"',
      ]);
    });

    it('should refuse an unknown modality', () => {
      expect(
        issueLinesOf(() => validateChatCompletionParams(createParams({ modalities: ['text', 'video'] }))),
      ).toEqual(['modalities[1]: must be "text" or "audio"']);
    });

    it('should refuse audio output for svcaudio-2.5-chat', () => {
      const params = createParams({ model: 'svcaudio-2.5-chat', modalities: ['text', 'audio'] });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'modalities: "audio" is not supported by svcaudio-2.5-chat, which answers text only',
      ]);
      expect(() =>
        validateChatCompletionParams(createParams({ model: 'svcaudio-2.5-chat', modalities: ['text'] })),
      ).not.toThrow();
    });
  });

  describe('when response_format or reasoning settings are wrong', () => {
    it('should require name and schema for json_schema', () => {
      const params = createParams({ response_format: { type: 'json_schema', json_schema: {} } });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'response_format.json_schema.name: required',
        'response_format.json_schema.schema: required',
      ]);
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(createParams({ response_format: { type: 'json_schema' } })),
        ),
      ).toEqual(['response_format.json_schema: required for type "json_schema"']);
    });

    it('should refuse an unknown response_format type', () => {
      expect(
        issueLinesOf(() => validateChatCompletionParams(createParams({ response_format: { type: 'xml' } }))),
      ).toEqual(['response_format.type: must be one of "text", "json_object" or "json_schema"']);
    });

    it('should refuse json_schema on a named model other than svc-3.5-flash and svc-3.5-flash-2603', () => {
      const responseFormat = { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } };
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(
            createParams({ model: 'svc-3.7-flash', response_format: responseFormat }),
          ),
        ),
      ).toEqual([
        'response_format.type: "json_schema" is supported only by "svc-3.5-flash" and "svc-3.5-flash-2603", not svc-3.7-flash',
      ]);
      for (const model of ['svc-3.5-flash', 'svc-3.5-flash-2603']) {
        expect(() =>
          validateChatCompletionParams(createParams({ model, response_format: responseFormat })),
        ).not.toThrow();
      }
    });

    it('should accept json_object on any model', () => {
      const params = createParams({ model: 'svc-3.7-flash', response_format: { type: 'json_object' } });
      expect(() => validateChatCompletionParams(params)).not.toThrow();
    });

    it('should refuse unknown reasoning_format and reasoning_effort values', () => {
      const params = createParams({ reasoning_format: 'raw', reasoning_effort: 'max' });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'reasoning_format: must be "general" or "alt-style"',
        'reasoning_effort: must be one of "low", "medium" or "high"',
      ]);
    });

    it('should allow only low and high reasoning_effort for svc-3.5-flash-2603', () => {
      const params = createParams({ model: 'svc-3.5-flash-2603', reasoning_effort: 'medium' });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'reasoning_effort: must be "low" or "high" for svc-3.5-flash-2603',
      ]);
      expect(() =>
        validateChatCompletionParams(createParams({ model: 'svc-3.5-flash-2603', reasoning_effort: 'high' })),
      ).not.toThrow();
      expect(
        issueLinesOf(() =>
          validateChatCompletionParams(
            createParams({ model: 'svc-3.5-flash-2603', reasoning_effort: 'max' }),
          ),
        ),
      ).toEqual(['reasoning_effort: must be one of "low", "medium" or "high"']);
      expect(() =>
        validateChatCompletionParams(createParams({ model: 'svc-3.5-flash', reasoning_effort: 'medium' })),
      ).not.toThrow();
    });
  });

  describe('when several rules are broken at once', () => {
    it('should list field rules and model rules together in one error', () => {
      const params = createParams({
        model: 'svc-3.5-flash-2603',
        temperature: 3,
        max_tokens: 1.5,
        reasoning_effort: 'medium',
        stream: true,
        audio: { voice: 'v', format: 'wav' },
      });
      expect(issueLinesOf(() => validateChatCompletionParams(params))).toEqual([
        'max_tokens: must be a positive integer',
        'temperature: must be between 0 and 2',
        'audio.format: "wav" is allowed only when stream is not true; use "pcm" for streaming',
        'reasoning_effort: must be "low" or "high" for svc-3.5-flash-2603',
      ]);
    });
  });

  describe('when svc-router-v1 is used on the default channel', () => {
    it('should point to the plan channel', () => {
      expect(
        issueLinesOf(() => validateChatCompletionParams(createParams({ model: 'svc-router-v1' }))),
      ).toEqual([
        "model: svc-router-v1 is served only on the plan channel: client.plan.chat.completions.create(...), or new Agent({ client, model: 'svc-router-v1', channel: 'plan' })",
      ]);
    });
  });

  describe('when the schema is used directly', () => {
    it('should return the parsed params from safeParse', () => {
      const result = chatCompletionParamsSchema.safeParse(createParams());
      expect(result.success).toBe(true);
    });
  });
});
