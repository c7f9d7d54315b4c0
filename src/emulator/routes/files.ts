import { EmulatorHttpError, invalidParams, notFound } from '../errors.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import type { EmulatorState, FileRecord } from '../state.js';
import { fileText } from '../utils.js';

const MB = 1024 * 1024;
/** Size limit per purpose, as the service documents it. */
export const PURPOSE_LIMITS: Record<string, number> = {
  'file-extract': 64 * MB,
  'retrieval-text': 64 * MB,
  'retrieval-image': 64 * MB,
  storage: 128 * MB,
};
const MAX_FILES = 1000;

/** The service's view of a file: `processed` while parsing, `success` once `parseDelayMs` has passed. */
export function fileObject(file: FileRecord, now = Date.now()) {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: file.created_at,
    filename: file.filename,
    purpose: file.purpose,
    status: now >= file.readyAt ? 'success' : 'processed',
  };
}

/** A stored file or 404. */
export function getFile(state: EmulatorState, id: string): FileRecord {
  const file = state.files.get(id);
  if (!file) throw notFound('file', id);
  return file;
}

/** `POST /v1/files` (multipart: `purpose`, `file`). */
export async function uploadFile(ctx: RouteContext): Promise<Reply> {
  const contentType = String(ctx.headers['content-type'] ?? '');
  if (!contentType.startsWith('multipart/form-data')) {
    throw invalidParams('body: must be multipart/form-data with the fields "purpose" and "file"');
  }
  let form: FormData;
  try {
    form = await new Request('http://emulator/upload', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: ctx.raw,
    }).formData();
  } catch {
    throw invalidParams('body: malformed multipart/form-data');
  }
  const purpose = form.get('purpose');
  if (typeof purpose !== 'string') throw invalidParams('purpose: required');
  if (purpose === 'retrieval')
    throw invalidParams(
      'purpose: "retrieval" is withdrawn by the service (its documentation says so; the spec only lists it among purposes seen on files); use "retrieval-text" or "retrieval-image"',
    );
  const limit = PURPOSE_LIMITS[purpose];
  if (limit === undefined) {
    throw invalidParams(`purpose: must be one of ${Object.keys(PURPOSE_LIMITS).join(', ')}`);
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') {
    if (form.get('url') !== null)
      throw invalidParams('url: remote files cannot be fetched by the emulator (no network); send "file"');
    throw invalidParams('file: required (a file part)');
  }
  if (file.size > limit) {
    throw invalidParams(
      `file: ${file.size} bytes exceeds the ${limit / MB} MB limit for purpose "${purpose}"`,
    );
  }
  if (ctx.state.files.size >= MAX_FILES) {
    throw new EmulatorHttpError(
      400,
      'request_params_invalid',
      `file: at most ${MAX_FILES} files per user; delete some first`,
    );
  }
  const content = Buffer.from(await file.arrayBuffer());
  const now = Date.now();
  const record: FileRecord = {
    id: ctx.state.randomId('file-'),
    bytes: content.length,
    created_at: Math.floor(now / 1000),
    filename: file.name || 'upload',
    purpose,
    readyAt: now + ctx.parseDelayMs,
    seq: ctx.state.nextSeq(),
  };
  ctx.state.addFile(record, content);
  return json(fileObject(record, now));
}

/** `GET /v1/files?purpose=`. */
export function listFiles(ctx: RouteContext): Reply {
  const purpose = ctx.query.get('purpose');
  const files = [...ctx.state.files.values()].filter((f) => !purpose || f.purpose === purpose);
  const now = Date.now();
  return json({ object: 'list', data: files.map((f) => fileObject(f, now)) });
}

/** `GET /v1/files/{file_id}`. */
export function retrieveFile(ctx: RouteContext): Reply {
  return json(fileObject(getFile(ctx.state, ctx.params.file_id ?? '')));
}

/** `GET /v1/files/{file_id}/content`: the extracted text, for `file-extract` files once parsed. */
export function fileContent(ctx: RouteContext): Reply {
  const file = getFile(ctx.state, ctx.params.file_id ?? '');
  if (file.purpose !== 'file-extract') {
    throw invalidParams(
      `file_id: content is available only for purpose "file-extract", not "${file.purpose}"`,
    );
  }
  if (Date.now() < file.readyAt)
    throw invalidParams('file_id: the file is still being parsed (status "processed")');
  const text = fileText(ctx.state.content(file.id) ?? Buffer.alloc(0));
  return { kind: 'bytes', status: 200, body: Buffer.from(text), contentType: 'text/plain; charset=utf-8' };
}

/** `DELETE /v1/files/{file_id}`. */
export function deleteFile(ctx: RouteContext): Reply {
  const file = getFile(ctx.state, ctx.params.file_id ?? '');
  ctx.state.deleteFile(file.id);
  return json({ id: file.id, object: 'file', deleted: true });
}
