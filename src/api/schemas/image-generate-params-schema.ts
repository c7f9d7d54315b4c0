import { z } from 'zod';
import {
  dataUriProblem,
  integerBetween,
  isHttpUrl,
  nonEmptyString,
  numberBetween,
  ruleError,
} from './field-rules.js';
import { imageModelIds } from './model-ids.js';
import { validateWithSchema } from './validate-with-schema.js';

/** Sizes the image model renders. */
export const imageSizes = ['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280'] as const;

/** Largest style-reference image, decoded (10 MB). */
export const maxStyleReferenceBytes = 10 * 1024 * 1024;

const referenceFormats = {
  mediaType: 'image',
  formats: 'png|jpeg',
  formatPattern: /^(?:png|jpe?g)$/i,
} as const;

function styleReferenceProblem(url: string): string | undefined {
  if (isHttpUrl(url)) return undefined;
  if (!url.startsWith('data:')) return 'must be an http(s) address or a data:image/<png|jpeg>;base64,... URI';
  const problem = dataUriProblem(url, referenceFormats);
  if (problem !== undefined) return problem;
  // base64 carries 3 bytes per 4 characters; the prefix is a few dozen characters, close enough for a limit.
  const bytes = Math.floor(((url.length - url.indexOf(',') - 1) * 3) / 4);
  return bytes > maxStyleReferenceBytes ? 'image must be at most 10 MB' : undefined;
}

const weightRule = 'must be greater than 0 and at most 2';

/** Body of `POST /v1/images/generations`. */
export const imageGenerateParamsSchema = z.object({
  model: z.enum(imageModelIds),
  prompt: nonEmptyString().max(1024, { error: 'must be at most 1024 characters' }),
  size: z.enum(imageSizes).optional(),
  n: z.literal(1, { error: 'only 1 image per call is supported' }).optional(),
  response_format: z.enum(['b64_json', 'url']).optional(),
  // The spec: "seed | integer | omitted or 0 means a system-generated seed"; it gives no bound.
  seed: z
    .number({ error: 'must be an integer' })
    .refine(Number.isInteger, { error: 'must be an integer' })
    .optional(),
  steps: integerBetween(1, 100).optional(),
  cfg_scale: numberBetween(1, 10).optional(),
  style_reference: z
    .object({
      source_url: z.string().superRefine((url, ctx) => {
        const problem = styleReferenceProblem(url);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
      weight: z
        .number({ error: ruleError(weightRule) })
        .gt(0, { error: weightRule })
        .max(2, { error: weightRule })
        .optional(),
    })
    .optional(),
});

/** Image-generation params as the schema accepts them. */
export type ImageGenerateParamsInput = z.input<typeof imageGenerateParamsSchema>;

/** Throws `RequestValidationError` when an image-generation body breaks a rule. */
export function validateImageGenerateParams(params: unknown): void {
  validateWithSchema(imageGenerateParamsSchema, 'images.generate', params);
}
