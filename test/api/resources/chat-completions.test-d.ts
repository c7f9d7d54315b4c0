import { describe, expectTypeOf, it } from 'vitest';
import type { ChatCompletionStream } from '../../../src/api/chat/chat-completion-stream.js';
import type { CursorPage } from '../../../src/api/pagination/cursor-page.js';
import type { SvcClient } from '../../../src/api/svc-client.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../../src/api/types/chat.js';
import type { FileObject } from '../../../src/api/types/files.js';
import type { Model } from '../../../src/api/types/models.js';
import type { TokenCountContentPart } from '../../../src/api/types/tokens.js';
import type { VectorStoreFile } from '../../../src/api/types/vector-stores.js';

declare const client: SvcClient;
const params = { model: 'svc-3.5-flash', messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('SvcClient types', () => {
  describe('when stream is given or not', () => {
    it('should return a completion without stream and a stream with stream: true', () => {
      expectTypeOf(client.chat.completions.create(params)).resolves.toEqualTypeOf<ChatCompletion>();
      expectTypeOf(
        client.chat.completions.create({ ...params, stream: false }),
      ).resolves.toEqualTypeOf<ChatCompletion>();
      expectTypeOf(
        client.plan.chat.completions.create({ ...params, model: 'svc-router-v1', stream: true }),
      ).resolves.toEqualTypeOf<ChatCompletionStream>();
      expectTypeOf<ChatCompletionStream>().toExtend<AsyncIterable<ChatCompletionChunk>>();
    });
  });

  describe('when the plan channel is given another model', () => {
    it('should be a type error: its model type is svc-router-v1', () => {
      // @ts-expect-error only 'svc-router-v1' on the plan channel
      void client.plan.chat.completions.create({ ...params, model: 'svc-3.5-flash' });
      expectTypeOf(client.plan.chat.completions.create)
        .parameter(0)
        .toHaveProperty('model')
        .toEqualTypeOf<'svc-router-v1'>();
    });
  });

  describe('when counting tokens', () => {
    it('should refuse video parts and image detail in the types', () => {
      const image = { type: 'image_url' as const, image_url: { url: 'https://e.com/a.png' } };
      void client.tokens.count({ model: 'svc-3.5-flash', messages: [{ role: 'user', content: [image] }] });
      // @ts-expect-error token counting takes no video part
      const video: TokenCountContentPart = { type: 'video_url', video_url: { url: 'https://e.com/v.mp4' } };
      // @ts-expect-error token counting takes no image detail
      const detailed: TokenCountContentPart = { type: 'image_url', image_url: { url: 'u', detail: 'low' } };
      void [video, detailed];
    });
  });

  describe('when listing models and files', () => {
    it('should await to { object, data } and iterate with for await', async () => {
      const models = client.models.list();
      expectTypeOf((await models).data).toEqualTypeOf<Model[]>();
      expectTypeOf(models).toExtend<AsyncIterable<Model>>();
      expectTypeOf(client.files.list()).toExtend<AsyncIterable<FileObject>>();
    });
  });

  describe('when listing with cursors', () => {
    it('should await to a page and iterate items', async () => {
      const list = client.vectorStores.files.list('vs1');
      expectTypeOf(await list).toEqualTypeOf<CursorPage<VectorStoreFile>>();
      expectTypeOf(list).toExtend<AsyncIterable<VectorStoreFile>>();
    });
  });
});
