import { z } from 'zod';
import { nonEmptyString } from './field-rules.js';
import { validateWithSchema } from './validate-with-schema.js';

const storeName = /^[A-Za-z0-9_]+$/;

/** Body of `POST /v1/vector_stores`: name of letters, digits and underscore, not starting with one. */
export const vectorStoreCreateParamsSchema = z.object({
  name: nonEmptyString().superRefine((name, ctx) => {
    if (name === '') return; // already reported as empty
    if (name.startsWith('_')) ctx.addIssue({ code: 'custom', message: 'must not start with an underscore' });
    else if (!storeName.test(name)) {
      ctx.addIssue({ code: 'custom', message: 'may contain only English letters, digits and underscore' });
    }
  }),
  type: z.enum(['text', 'image']).optional(),
});

/** Vector-store create params as the schema accepts them. */
export type VectorStoreCreateParamsInput = z.input<typeof vectorStoreCreateParamsSchema>;

/** Throws `RequestValidationError` when a vector-store create body breaks a rule. */
export function validateVectorStoreCreateParams(params: unknown): void {
  validateWithSchema(vectorStoreCreateParamsSchema, 'vectorStores.create', params);
}

/** Body of `POST /v1/vector_stores/{id}/files`: a non-empty list of `{ file_id, description? }`. */
export const vectorStoreFilesCreateParamsSchema = z.object({
  files: z
    .array(
      z.object({
        file_id: nonEmptyString(),
        description: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
      }),
    )
    .min(1, { error: 'must contain at least one file' }),
});

/** The same body for an image store, where every file needs a description. */
export const imageVectorStoreFilesCreateParamsSchema = vectorStoreFilesCreateParamsSchema.superRefine(
  (params, ctx) => {
    for (const [index, file] of params.files.entries()) {
      if (file.description === undefined || file.description === '') {
        ctx.addIssue({
          code: 'custom',
          message: 'required for image stores',
          path: ['files', index, 'description'],
        });
      }
    }
  },
);

/** Vector-store files create params as the schema accepts them. */
export type VectorStoreFilesCreateParamsInput = z.input<typeof vectorStoreFilesCreateParamsSchema>;

/**
 * Throws `RequestValidationError` when an add-files body breaks a rule. Pass the store's `storeType`
 * when known: an `image` store requires a description for every file.
 */
export function validateVectorStoreFilesCreateParams(
  params: unknown,
  { storeType }: { storeType?: 'text' | 'image' | undefined } = {},
): void {
  const schema =
    storeType === 'image' ? imageVectorStoreFilesCreateParamsSchema : vectorStoreFilesCreateParamsSchema;
  validateWithSchema(schema, 'vectorStores.files.create', params);
}
