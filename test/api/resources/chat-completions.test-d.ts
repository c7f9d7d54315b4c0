import { describe, expectTypeOf, it } from 'vitest';
import type { ChatCompletionStream } from '../../../src/api/chat/chat-completion-stream.js';
import type { CursorPage } from '../../../src/api/pagination/cursor-page.js';
import type { SvcClient } from '../../../src/api/svc-client.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../../src/api/types/chat.js';
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
        client.plan.chat.completions.create({ ...params, stream: true }),
      ).resolves.toEqualTypeOf<ChatCompletionStream>();
      expectTypeOf<ChatCompletionStream>().toExtend<AsyncIterable<ChatCompletionChunk>>();
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
