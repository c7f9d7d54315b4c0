import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { createFileFixture, type FileFixture } from '../../helpers/file-fixture.js';
import { tinyPng, wavOfSeconds } from '../../helpers/media-bytes.js';
import { runCliInMemory } from '../../helpers/run-cli-in-memory.js';

describe('svc-agents chat request flags', () => {
  let emu: Emulator;
  let fixture: FileFixture;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    fixture = await createFileFixture('svc-chat-flags-', {
      'photo.png': tinyPng(),
      'notes.txt': 'not an image',
      'question.wav': wavOfSeconds(1),
    });
    dir = fixture.dir;
    await fixture.write(
      'contact.schema.json',
      JSON.stringify({
        name: 'contact',
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
          required: ['name', 'email'],
          additionalProperties: false,
        },
      }),
    );
  });
  beforeEach(() => emu.reset());
  afterAll(async () => {
    await emu.close();
    await fixture.remove();
  });

  const chat = (args: string[], input = '') => runCliInMemory(emu, ['chat', ...args], { cwd: dir, input });

  const chatRequests = () =>
    emu
      .requests()
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => ({ path: request.path, body: request.body as ChatCompletionCreateParams }));

  describe('when given --audio-out', () => {
    it('should ask an audio model for pcm and write the answer as a playable wav', async () => {
      const { code, stdout, stderr } = await chat(['Say good morning', '--audio-out', 'answer.wav']);
      expect(code, stderr).toBe(0);
      expect(stdout.trim()).not.toBe('');
      const wav = await readFile(join(dir, 'answer.wav'));
      expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
      expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
      expect(wav.readUInt32LE(24)).toBe(24_000);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
      expect(wav.length).toBeGreaterThan(44);
      expect(stderr).toContain(`wrote ${join(dir, 'answer.wav')}`);
      const [request] = chatRequests();
      expect(request?.body).toMatchObject({
        model: 'svc-audio-2',
        modalities: ['text', 'audio'],
        audio: { voice: 'qingchunshaonv', format: 'pcm' },
      });
    });

    it('should send the voice given with --voice and name the file in --json', async () => {
      const { code, stdout } = await chat([
        'Hi',
        '--audio-out',
        'voice.wav',
        '--voice',
        'wenrounansheng',
        '--json',
      ]);
      expect(code).toBe(0);
      const summary = JSON.parse(stdout) as { audio: { file: string; transcript: string }; text: string };
      expect(summary.audio.file).toBe(join(dir, 'voice.wav'));
      expect(summary.audio.transcript).toBe(summary.text);
      expect(chatRequests()[0]?.body.audio).toEqual({ voice: 'wenrounansheng', format: 'pcm' });
    });

    it('should refuse a voice that is not a preset voice of the model, before sending', async () => {
      const { code, stderr } = await chat(['Hi', '--audio-out', 'x.wav', '--voice', 'robot']);
      expect(code).not.toBe(0);
      expect(stderr).toContain('audio.voice');
      expect(chatRequests()).toEqual([]);
    });
  });

  describe('when given --voice without --audio-out', () => {
    it('should be a usage error', async () => {
      const { code, stderr } = await chat(['Hi', '--voice', 'wenrounansheng']);
      expect(code).toBe(2);
      expect(stderr).toContain('--voice needs --audio-out');
    });
  });

  describe('when given --plan', () => {
    it('should send every turn to the plan channel with svc-router-v1', async () => {
      const { code, stdout, stderr } = await chat(['What is the weather in Paris?', '--plan']);
      expect(code, stderr).toBe(0);
      expect(stdout.trim()).not.toBe('');
      const requests = chatRequests();
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(request.path).toBe('/svc_plan/v1/chat/completions');
        expect(request.body.model).toBe('svc-router-v1');
      }
    });
  });

  describe('when given media', () => {
    it('should attach an image file as a data URI part and pick the vision model', async () => {
      const { code, stderr } = await chat(['What is in this picture?', '--image', 'photo.png']);
      expect(code, stderr).toBe(0);
      const [request] = chatRequests();
      expect(request?.body.model).toBe('svc-1o-turbo-vision');
      const user = request?.body.messages.find((message) => message.role === 'user');
      expect(user?.content).toEqual([
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${tinyPng().toString('base64')}` } },
      ]);
    });

    it('should attach several images, an image URL and a video URL in order', async () => {
      const { code, stderr } = await chat([
        'Compare these',
        '--image',
        'photo.png',
        '--image',
        'https://example.com/cat.jpg',
        '--video',
        'https://cdn.example.com/v/clip?sig=1',
      ]);
      expect(code, stderr).toBe(0);
      const user = chatRequests()[0]?.body.messages.find((message) => message.role === 'user');
      expect((user!.content as Array<{ type: string }>).map((part) => part.type)).toEqual([
        'text',
        'image_url',
        'image_url',
        'video_url',
      ]);
    });

    it('should attach a recording as input_audio on the audio model', async () => {
      const { code, stderr } = await chat(['What did I say?', '--audio', 'question.wav']);
      expect(code, stderr).toBe(0);
      const [request] = chatRequests();
      expect(request?.body).toMatchObject({ model: 'svc-audio-2', modalities: ['text'] });
      const user = request?.body.messages.find((message) => message.role === 'user');
      expect(
        (user!.content as Array<{ type: string; input_audio?: { data: string } }>)[1]?.input_audio?.data,
      ).toMatch(/^data:audio\/wav;base64,/);
    });

    it.each([
      [['--image', 'notes.txt'], '--image: imagePart: unsupported image format'],
      [['--image', 'missing.png'], 'no such file: missing.png'],
      [['--audio', 'photo.png'], '--audio: audioPart: unsupported audio format'],
      [['--video', 'file:///tmp/clip.mp4'], '--video: videoPart: the video must be an http or https URL'],
    ])('should refuse %j before any request, naming the flag', async (flags, message) => {
      const { code, stderr } = await chat(['Look', ...flags]);
      expect(code).not.toBe(0);
      expect(stderr).toContain(message);
      expect(emu.requests()).toEqual([]);
    });

    it('should refuse an image on the plan channel as the client does', async () => {
      const { code, stderr } = await chat(['Look', '--plan', '--image', 'photo.png']);
      expect(code).not.toBe(0);
      expect(stderr).toContain('image input is not supported by svc-router-v1 on the plan channel');
      expect(chatRequests()).toEqual([]);
    });
  });

  describe('when given --json-schema', () => {
    it('should send the schema as strict json_schema and print an output that matches it', async () => {
      const { code, stdout, stderr } = await chat([
        'Extract the contact: Ada Lovelace, ada@example.com',
        '--json-schema',
        'contact.schema.json',
        '--json',
      ]);
      expect(code, stderr).toBe(0);
      const summary = JSON.parse(stdout) as { output: { name: string; email: string } };
      expect(Object.keys(summary.output).sort()).toEqual(['email', 'name']);
      expect(summary.output.email).toMatch(/^[^@\s]+@[^@\s]+\.[^@\s]+$/);
      const format = chatRequests()[0]?.body.response_format;
      expect(format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    });

    it('should refuse a schema whose root is not an object', async () => {
      await writeFile(join(dir, 'list.schema.json'), JSON.stringify({ type: 'array' }));
      const { code, stderr } = await chat(['x', '--json-schema', 'list.schema.json']);
      expect(code).toBe(2);
      expect(stderr).toContain('--json-schema: the schema\'s root "type" must be "object"');
    });
  });

  describe('when a piped line fails', () => {
    it('should print its error, answer the next lines and exit 1 at the end', async () => {
      emu.script([
        { message: { content: 'First answer.' } },
        { error: { status: 400, body: { error: { message: 'Bad line', type: 'request_params_invalid' } } } },
        { message: { content: 'Third answer.' } },
      ]);
      const { code, stdout, stderr } = await chat([], 'one\ntwo\nthree\n');
      expect(stdout).toContain('First answer.');
      expect(stdout).toContain('Third answer.');
      expect(stderr).toContain('Bad line');
      expect(stderr).toContain('1 of 3 line(s) failed');
      expect(code).toBe(1);
    });
  });
});
