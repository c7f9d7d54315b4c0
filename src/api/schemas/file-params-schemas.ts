import { z } from 'zod';
import { isHttpUrl, nonEmptyString } from './field-rules.js';
import { validateWithSchema } from './validate-with-schema.js';

/** Purposes an upload may have; the older `retrieval` is withdrawn. */
export const filePurposes = ['file-extract', 'retrieval-text', 'retrieval-image', 'storage'] as const;

/** Upload size limit per purpose, in bytes (64 MB for extraction and retrieval, 128 MB for storage). */
export const maxUploadBytes: Readonly<Record<(typeof filePurposes)[number], number>> = {
  'file-extract': 64 * 1024 * 1024,
  'retrieval-text': 64 * 1024 * 1024,
  'retrieval-image': 64 * 1024 * 1024,
  storage: 128 * 1024 * 1024,
};

const purposeSchema = z.enum(filePurposes, {
  error: (issue) =>
    issue.input === 'retrieval'
      ? '"retrieval" is withdrawn by the service (its documentation says so; the spec only lists it among purposes seen on files); use "retrieval-text" or "retrieval-image"'
      : undefined,
});

/** Byte size of an in-memory file, `undefined` for a path or a stream. */
function byteSize(file: unknown): number | undefined {
  if (file instanceof Uint8Array) return file.byteLength;
  if (file instanceof Blob) return file.size;
  return undefined;
}

function isFileSource(file: unknown): boolean {
  if (typeof file === 'string') return file.length > 0;
  if (file instanceof Uint8Array || file instanceof Blob) return true;
  if (typeof file !== 'object' || file === null) return false;
  return 'getReader' in file || 'pipe' in file || Symbol.asyncIterator in file;
}

/** Params of a multipart `POST /v1/files` upload: a file (path, Buffer, Blob or stream) or a remote url. */
export const fileUploadParamsSchema = z
  .object({
    file: z.unknown().optional(),
    purpose: purposeSchema,
    filename: nonEmptyString().optional(),
    url: z.string().refine(isHttpUrl, { error: 'must be an http(s) address' }).optional(),
  })
  .superRefine((params, ctx) => {
    if (params.file === undefined) {
      if (params.url === undefined)
        ctx.addIssue({ code: 'custom', message: 'required (or give url)', path: ['file'] });
      return;
    }
    if (!isFileSource(params.file)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a file path, a Buffer, a Blob or a readable stream',
        path: ['file'],
      });
      return;
    }
    const size = byteSize(params.file);
    const limit = maxUploadBytes[params.purpose];
    if (size !== undefined && size > limit) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${limit / 1024 / 1024} MB for purpose "${params.purpose}"`,
        path: ['file'],
      });
    }
  });

/** File-upload params as the schema accepts them. */
export type FileUploadParamsInput = z.input<typeof fileUploadParamsSchema>;

/** Throws `RequestValidationError` when upload params break a rule. */
export function validateFileUploadParams(params: unknown): void {
  validateWithSchema(fileUploadParamsSchema, 'files.upload', params);
}

/** Query of `GET /v1/files`: an optional purpose filter (older files may still carry `retrieval`). */
export const fileListQuerySchema = z.object({ purpose: nonEmptyString().optional() });

/** File-list query as the schema accepts it. */
export type FileListQueryInput = z.input<typeof fileListQuerySchema>;

/** Throws `RequestValidationError` when a file-list query breaks a rule. */
export function validateFileListQuery(query: unknown): void {
  validateWithSchema(fileListQuerySchema, 'files.list', query ?? {});
}
