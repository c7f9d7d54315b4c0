import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiTestSetup,
  createApiTestSetup,
  jsonBody,
  requestUrl,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

describe('Voices', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when cloning a voice', () => {
    it('should POST /v1/audio/voices with JSON and parse the voice', async () => {
      const answer = {
        id: 'voice-tone-1',
        object: 'audio.voice',
        sample_text: 'Hi',
        sample_audio: 'UklGRg==',
      };
      setup.replyJson(answer);
      const params = { model: 'svc-tts-2' as const, file_id: 'file-1', sample_text: 'Hi' };
      const result = await setup.client.audio.voices.create(params);
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/audio/voices');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual(params);
      expect(result).toEqual(answer);
    });
  });

  describe('when listing voices', () => {
    it('should GET /v1/audio/voices with the query and parse the page', async () => {
      setup.replyJson({
        object: 'list',
        data: [{ id: 'voice-tone-1', file_id: 'file-1', created_at: 5 }],
        has_more: false,
        first_id: 'voice-tone-1',
        last_id: 'voice-tone-1',
      });
      const page = await setup.client.audio.voices.list({ limit: 2 });
      const url = requestUrl(setup.onlyRequest());
      expect(setup.onlyRequest().method).toBe('GET');
      expect(url.pathname).toBe('/v1/audio/voices');
      expect(url.searchParams.get('limit')).toBe('2');
      expect(page.data).toEqual([{ id: 'voice-tone-1', file_id: 'file-1', created_at: 5 }]);
      expect(page.last_id).toBe('voice-tone-1');
    });
  });
});
