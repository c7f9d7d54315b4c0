import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartInputError } from '../../../src/api/errors.js';
import { audioPart } from '../../../src/api/parts/audio-part.js';
import { imagePart } from '../../../src/api/parts/image-part.js';
import { textPart } from '../../../src/api/parts/text-part.js';
import { videoPart } from '../../../src/api/parts/video-part.js';
import { createApiTestSetup, jsonBody } from '../../helpers/create-api-test-setup.js';
import { createFileFixture, type FileFixture } from '../../helpers/file-fixture.js';
import { gif, jpegHead, mp3, tinyPng, tinyWav, webpHead } from '../../helpers/media-bytes.js';

describe('message part helpers', () => {
  let fixture: FileFixture;
  let dir: string;
  beforeAll(async () => {
    fixture = await createFileFixture('svc-parts-');
    dir = fixture.dir;
  });
  afterAll(() => fixture.remove());

  describe('imagePart', () => {
    describe('when given bytes', () => {
      it.each([
        ['png', tinyPng()],
        ['jpeg', jpegHead()],
        ['webp', webpHead()],
        ['gif', gif()],
      ])('should detect %s from the magic bytes and build a data URI', (format, bytes) => {
        const part = imagePart(bytes, { detail: 'high' });
        expect(part).toEqual({
          type: 'image_url',
          image_url: { url: `data:image/${format};base64,${bytes.toString('base64')}`, detail: 'high' },
        });
      });

      it('should refuse an animated GIF', () => {
        expect(() => imagePart(gif({ animated: true }))).toThrow(/animated GIFs are not accepted/);
      });

      it('should refuse a BMP naming the accepted formats', () => {
        const error = (() => {
          try {
            imagePart(Buffer.from('BM\x3a\0\0\0'));
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(PartInputError);
        expect((error as Error).message).toBe(
          'imagePart: unsupported image format (leading bytes 0x424d3a000000); the service accepts jpeg, png, webp and static gif',
        );
      });
    });

    describe('when given a path, a URL or a data URI', () => {
      it('should read the file and detect its format', async () => {
        const path = join(dir, 'pixel.bin');
        await writeFile(path, tinyPng());
        expect(imagePart(path).image_url.url).toBe(`data:image/png;base64,${tinyPng().toString('base64')}`);
      });

      it('should name the file it cannot read', () => {
        expect(() => imagePart(join(dir, 'missing.png'))).toThrow(
          /cannot read file ".*missing\.png" \(ENOENT\)/,
        );
      });

      it('should pass http(s) URLs through and leave detail out when not given', () => {
        expect(imagePart('https://example.com/cat.jpg')).toEqual({
          type: 'image_url',
          image_url: { url: 'https://example.com/cat.jpg' },
        });
      });

      it('should refuse a data URI of another format', () => {
        expect(() => imagePart('data:image/bmp;base64,Qk0=')).toThrow(PartInputError);
      });
    });
  });

  describe('audioPart', () => {
    it.each([
      ['wav', tinyWav()],
      ['mp3', mp3()],
      ['mp3', mp3({ tagged: false })],
    ])('should detect %s and build data:audio/<format>', (format, bytes) => {
      expect(audioPart(bytes)).toEqual({
        type: 'input_audio',
        input_audio: { data: `data:audio/${format};base64,${bytes.toString('base64')}` },
      });
    });

    it('should refuse anything else, e.g. an Ogg file', () => {
      expect(() => audioPart(Buffer.from('OggS\0\x02'))).toThrow(/mp3 and wav only/);
    });

    it('should read a path', async () => {
      const path = join(dir, 'voice.wav');
      await writeFile(path, tinyWav());
      expect(audioPart(path).input_audio.data).toMatch(/^data:audio\/wav;base64,UklGR/);
    });
  });

  describe('videoPart and textPart', () => {
    it('should accept http(s) video URLs only', () => {
      expect(videoPart('https://example.com/v.mp4')).toEqual({
        type: 'video_url',
        video_url: { url: 'https://example.com/v.mp4' },
      });
      expect(() => videoPart('file:///tmp/v.mp4')).toThrow(/http or https URL/);
      expect(videoPart('https://cdn.example.com/v/7f3a9c?sig=1')).toEqual({
        type: 'video_url',
        video_url: { url: 'https://cdn.example.com/v/7f3a9c?sig=1' },
      });
    });

    it('should build a text part', () => {
      expect(textPart('hi')).toEqual({ type: 'text', text: 'hi' });
    });
  });

  describe('when the parts are sent in a chat request', () => {
    it('should pass validation and reach the server unchanged', async () => {
      const setup = await createApiTestSetup();
      try {
        setup.replyJson({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [] });
        const content = [textPart('Describe'), imagePart(tinyPng()), audioPart(tinyWav())];
        await setup.client.chat.completions.create({
          model: 'svc-1o-audio',
          modalities: ['text'],
          messages: [{ role: 'user', content }],
        });
        expect(jsonBody(setup.onlyRequest())).toMatchObject({ messages: [{ role: 'user', content }] });
      } finally {
        await setup.close();
      }
    });
  });
});
