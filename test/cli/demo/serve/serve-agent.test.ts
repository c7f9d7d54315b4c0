import { afterEach, describe, expect, it } from 'vitest';
import { pcmToWav } from '../../../../src/api/audio/pcm-to-wav.js';
import { ChatClientError, createChatClient } from '../../../../src/browser-client/index.js';
import { toWavBlob } from '../../../../src/cli/demo/serve/page/to-wav-blob.js';
import { createServeAgent } from '../../../../src/cli/demo/serve/serve-agent.js';
import { type ChatServer, startChatServer } from '../../../../src/cli/demo/serve/start-chat-server.js';
import { collect } from '../../../helpers/collect.js';
import { tinyPng } from '../../../helpers/media-bytes.js';
import { chatRequests, useAgentTestEnv } from '../../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();
let server: ChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: Partial<Parameters<typeof createServeAgent>[0]> = {}) {
  server = await startChatServer({
    client: env.client,
    port: 0,
    agent: createServeAgent({
      model: 'svc-3.5-flash-2603',
      tools: [],
      instructions: 'Be brief.',
      ...options,
    }),
  });
  return createChatClient({ baseUrl: `${server.url}/api` });
}

const pngUri = `data:image/png;base64,${tinyPng().toString('base64')}`;

describe('the served chat agent', () => {
  describe('when a message carries an attached image', () => {
    it('should send it as an image part to the vision model, and keep the conversation there', async () => {
      const chat = await serve();
      const first = chat.send('What is in this picture?', { sessionId: 's1', images: [pngUri] });
      await collect(first);
      const second = chat.send('And its colour?', { sessionId: 's1' });
      await collect(second);
      const [withImage, followUp] = chatRequests(env.emu);
      expect(withImage?.model).toBe('svc-1o-turbo-vision');
      expect(withImage?.messages.at(-1)).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: pngUri } },
        ],
      });
      // The image stays in the history, so the vision model keeps answering.
      expect(followUp?.model).toBe('svc-1o-turbo-vision');
    });

    it('should answer a message without images with the chat model', async () => {
      const chat = await serve();
      await collect(chat.send('Hello', { sessionId: 's2' }));
      expect(chatRequests(env.emu)[0]?.model).toBe('svc-3.5-flash-2603');
    });

    it.each([
      [
        ['data:image/tiff;base64,AAAA'],
        'images[0]: imagePart: a data URI must be data:image/<jpeg|png|webp|gif>',
      ],
      [['ftp://example.com/cat.png'], 'images[0]: must be an http(s) address or a data:image/... URI'],
      ['cat.png', 'images: must be an array of at most 4 image URLs'],
    ])('should refuse %j with a 400 naming the field, before any model request', async (images, message) => {
      const chat = await serve();
      const run = chat.send('Look', { sessionId: 's3', images: images as string[] });
      const error = await collect(run).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ChatClientError);
      expect((error as ChatClientError).status).toBe(400);
      expect((error as Error).message).toContain(message);
      expect(chatRequests(env.emu)).toEqual([]);
    });
  });

  describe('when the agent speaks (audio output)', () => {
    it('should stream pcm pieces that the page turns into the wav the client assembles', async () => {
      const chat = await serve({
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { voice: 'qingchunshaonv', format: 'pcm' } },
      });
      const events = await collect(chat.send('Say good morning', { sessionId: 's4' }));
      const pieces = events.flatMap((event) => (event.type === 'audio-delta' ? [event.data] : []));
      expect(pieces.length).toBeGreaterThan(1);
      const blob = toWavBlob(pieces);
      expect(blob.type).toBe('audio/wav');
      const pcm = Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'base64')));
      expect(Buffer.from(await blob.arrayBuffer()).equals(pcmToWav(pcm))).toBe(true);
    });
  });
});
