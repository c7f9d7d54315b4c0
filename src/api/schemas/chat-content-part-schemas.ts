import { z } from 'zod';
import { isAnimatedGif } from '../parts/detect-media-format.js';
import { dataUriProblem, isHttpUrl, ruleError } from './field-rules.js';

const imageFormats = {
  mediaType: 'image',
  formats: 'jpg|jpeg|png|webp|gif',
  formatPattern: /^(?:jpe?g|png|webp|gif)$/i,
} as const;
const audioFormats = { mediaType: 'audio', formats: 'mp3|wav', formatPattern: /^(?:mp3|wav)$/i } as const;

/** Problem with an image address (http(s) or `data:image/<jpg|jpeg|png|webp|gif>;base64,`), if any. */
export function imageUrlProblem(url: string): string | undefined {
  if (isHttpUrl(url)) return undefined;
  if (!url.startsWith('data:')) {
    return 'must be an http(s) address or a data:image/<jpg|jpeg|png|webp|gif>;base64,... URI';
  }
  const problem = dataUriProblem(url, imageFormats);
  if (problem !== undefined) return problem;
  // The spec allows "static gif" only: an animation's looping extension sits in its first bytes.
  if (/^data:image\/gif;/i.test(url) && isAnimatedGif(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')))
    return 'an animated GIF is not supported; the service takes static GIF images only';
  return undefined;
}

/** An image address: http(s) or a base64 image data URI of a supported format. */
export const imageUrlSchema = z.string({ error: ruleError('must be a string') }).superRefine((url, ctx) => {
  const problem = imageUrlProblem(url);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A text part. */
export const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/** An image part of a chat message. */
export const imagePartSchema = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: imageUrlSchema, detail: z.enum(['low', 'high']).optional() }),
});

/**
 * A video part: any http(s) address. The spec says the video is mp4, not that the path names it so
 * (signed and streaming URLs often end in no extension): the service finds out when it fetches it.
 */
export const videoPartSchema = z.object({
  type: z.literal('video_url'),
  video_url: z.object({
    url: z.string().superRefine((url, ctx) => {
      if (!isHttpUrl(url))
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) address of an mp4 video' });
    }),
  }),
});

/** An audio input part: base64 mp3 or wav data URI. */
export const audioPartSchema = z.object({
  type: z.literal('input_audio'),
  input_audio: z.object({
    data: z.string().superRefine((data, ctx) => {
      const problem = dataUriProblem(data, audioFormats);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  }),
});

/** Any typed part of a user message of a chat completion. */
export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  videoPartSchema,
  audioPartSchema,
]);

/** A typed part of a user message, as the schema accepts it. */
export type ContentPartInput = z.input<typeof contentPartSchema>;
