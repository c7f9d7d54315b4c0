import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import type { ChatMessage, ToolDefinition } from '../../../src/api/types/chat.js';
import {
  type ApiTestSetup,
  createApiTestSetup,
  helloCompletion,
} from '../../helpers/create-api-test-setup.js';

// A caller of the client may keep its message and tool objects and edit them between requests: each
// request is checked as sent, like any other (the client knows nothing of a conversation).
describe('ChatCompletions validation of objects sent before', () => {
  let setup: ApiTestSetup;
  beforeEach(async () => {
    setup = await createApiTestSetup();
    setup.replyJson(helloCompletion);
  });
  afterEach(() => setup.close());

  describe('when a message that passed is edited and sent again', () => {
    it('should refuse the broken message and send nothing', async () => {
      const message: Record<string, unknown> = { role: 'user', content: 'Hi' };
      const params = { model: 'svc-3.5-flash', messages: [message as unknown as ChatMessage] };
      await setup.client.chat.completions.create(params);
      message.content = [{ type: 'image_url', image_url: { url: 'ftp://example.com/cat.png' } }];
      const error = await setup.client.chat.completions.create(params).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/messages\[0\]\.content/);
      expect(setup.server.requests).toHaveLength(1);
    });
  });

  describe('when a tool definition that passed is edited and sent again', () => {
    it('should refuse the broken definition and send nothing', async () => {
      const tool = { type: 'function', function: { name: 'get_weather' } } as ToolDefinition;
      const params = {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user' as const, content: 'Hi' }],
        tools: [tool],
      };
      await setup.client.chat.completions.create(params);
      (tool as { function: { name: string } }).function.name = 'get weather';
      const error = await setup.client.chat.completions.create(params).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/tools\[0\]\.function\.name/);
      expect(setup.server.requests).toHaveLength(1);
    });
  });

  describe('when a message built by a class is edited and sent again', () => {
    it('should refuse the broken message and send nothing', async () => {
      class Message {
        constructor(
          public role: string,
          public content: unknown,
        ) {}
      }
      const message = new Message('user', 'Hi');
      const params = { model: 'svc-3.5-flash', messages: [message as unknown as ChatMessage] };
      await setup.client.chat.completions.create(params);
      message.content = { text: 'not a string nor parts' };
      const error = await setup.client.chat.completions.create(params).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/messages\[0\]\.content/);
      expect(setup.server.requests).toHaveLength(1);
    });
  });

  describe('when a message holding a class-built part is edited and sent again', () => {
    it('should refuse the broken part and send nothing', async () => {
      class TextPart {
        type = 'text';
        constructor(public text: unknown) {}
      }
      const part = new TextPart('Hi');
      const params = {
        model: 'svc-3.5-flash',
        messages: [{ role: 'user', content: [part] } as unknown as ChatMessage],
      };
      await setup.client.chat.completions.create(params);
      part.text = 42;
      const error = await setup.client.chat.completions.create(params).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/messages\[0\]\.content\[0\]/);
      expect(setup.server.requests).toHaveLength(1);
    });
  });

  describe('when an object accepted as a tool definition is sent as a message', () => {
    it('should check it as a message', async () => {
      const tool = { type: 'function', function: { name: 'get_weather' } } as ToolDefinition;
      await setup.client.chat.completions.create({
        model: 'svc-3.5-flash',
        messages: [{ role: 'user' as const, content: 'Hi' }],
        tools: [tool],
      });
      const error = await setup.client.chat.completions
        .create({ model: 'svc-3.5-flash', messages: [tool as unknown as ChatMessage] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/messages\[0\]\.role/);
      expect(setup.server.requests).toHaveLength(1);
    });
  });
});
