import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import {
  type ApiTestSetup,
  createApiTestSetup,
  helloCompletion,
  jsonBody,
  sendSse,
  testApiKey,
} from '../../helpers/create-api-test-setup.js';

const params = { model: 'svc-3.5-flash', messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('ChatCompletions', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
  });
  afterEach(() => setup.close());

  describe('when creating a completion', () => {
    it('should POST the params as JSON with bearer auth and parse the completion', async () => {
      setup.replyJson(helloCompletion);
      const result = await setup.client.chat.completions.create({ ...params, temperature: 0.2 });
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(request)).toEqual({ ...params, temperature: 0.2 });
      expect(result).toEqual(helloCompletion);
    });

    it('should send per-call headers', async () => {
      setup.replyJson(helloCompletion);
      await setup.client.chat.completions.create(params, { headers: { 'x-extra': 'yes' } });
      expect(setup.onlyRequest().headers['x-extra']).toBe('yes');
    });
  });

  describe('when using the plan channel', () => {
    it('should POST to /svc_plan/v1/chat/completions', async () => {
      setup.replyJson({ ...helloCompletion, model: 'svc-router-v1' });
      const result = await setup.client.plan.chat.completions.create({ ...params, model: 'svc-router-v1' });
      const request = setup.onlyRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/svc_plan/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${testApiKey}`);
      expect(jsonBody(request)).toEqual({ ...params, model: 'svc-router-v1' });
      expect(result.model).toBe('svc-router-v1');
    });

    it('should refuse another model before any network call', async () => {
      setup.replyJson(helloCompletion);
      // The types refuse it too: the plan channel's model type is 'svc-router-v1'.
      // @ts-expect-error another model on the plan channel
      await expect(setup.client.plan.chat.completions.create(params)).rejects.toThrow(RequestValidationError);
      expect(setup.server.requests).toHaveLength(0);
    });
  });

  describe('when the params break a rule', () => {
    it('should throw RequestValidationError naming the field and send nothing', async () => {
      setup.replyJson(helloCompletion);
      const error = await setup.client.chat.completions
        .create({ ...params, messages: [{ role: 'tool', content: 'x' } as never] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toContain('messages[0].tool_call_id');
      expect(setup.server.requests).toHaveLength(0);
    });

    it('should send the request as is with validate: false', async () => {
      await setup.close();
      setup = await createApiTestSetup({ validate: false });
      setup.replyJson(helloCompletion);
      await setup.client.chat.completions.create({ ...params, temperature: 9 });
      expect(jsonBody(setup.onlyRequest())).toMatchObject({ temperature: 9 });
    });
  });

  describe('when streaming', () => {
    it('should POST stream: true and yield the chunks with the trace id', async () => {
      const chunk = {
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }],
      };
      setup.server.setHandler((_req, res) => sendSse(res, [chunk]));
      const stream = await setup.client.chat.completions.create({ ...params, stream: true });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks).toEqual([chunk]);
      expect(stream.requestId).toBe('trace-sse');
      expect(jsonBody(setup.onlyRequest())).toEqual({ ...params, stream: true });
      expect((await stream.finalCompletion()).choices[0]?.message.content).toBe('Hi');
    });
  });
});
