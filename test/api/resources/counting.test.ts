import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiTestSetup,
  createApiTestSetup,
  jsonBody,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

describe('Tokens and Messages', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when counting chat-format tokens', () => {
    it('should POST /v1/token/count and parse data.total_tokens', async () => {
      setup.replyJson({ data: { total_tokens: 85 } });
      const params = { model: 'svc-3.5-flash', messages: [{ role: 'user' as const, content: 'Hello' }] };
      const result = await setup.client.tokens.count(params);
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/token/count');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual(params);
      expect(result.data.total_tokens).toBe(85);
    });
  });

  describe('when counting Messages-format tokens', () => {
    const params = {
      model: 'svc-3.5-flash',
      system: 'Be brief.',
      messages: [{ role: 'user' as const, content: 'Hello' }],
      tools: [{ name: 'get_time', input_schema: { type: 'object' } }],
    };

    it('should POST /v1/messages/count_tokens and parse input_tokens', async () => {
      setup.replyJson({ input_tokens: 12 });
      const result = await setup.client.messages.countTokens(params);
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/messages/count_tokens');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual(params);
      expect(result).toEqual({ input_tokens: 12 });
    });

    it('should use /svc_plan/v1 on the plan channel', async () => {
      setup.replyJson({ input_tokens: 3 });
      const result = await setup.client.plan.messages.countTokens({ ...params, model: 'svc-router-v1' });
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/svc_plan/v1/messages/count_tokens');
      expect(jsonBody(request)).toEqual({ ...params, model: 'svc-router-v1' });
      expect(result.input_tokens).toBe(3);
    });
  });
});
