import type { ListResponse } from './lists.js';

/** Purposes an upload may have; `retrieval` is withdrawn but still seen on old files. */
export type FilePurpose = 'file-extract' | 'retrieval-text' | 'retrieval-image' | 'storage';

/**
 * Parsing status of a file. Beware the service's meaning: `processed` = still being parsed,
 * `success` = ready to use.
 */
export type FileStatus = 'success' | 'processed' | (string & {});

/** An uploaded file. */
export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: FilePurpose | 'retrieval' | (string & {});
  status?: FileStatus;
}

/** Response of `GET /v1/files`. */
export type FileList = ListResponse<FileObject>;

/** Response of `DELETE /v1/files/{id}`. */
export interface FileDeleted {
  id: string;
  object: 'file';
  deleted: boolean;
}

/** Query of `GET /v1/files`. */
export interface FileListParams {
  /** Only files with this purpose. */
  purpose?: FilePurpose | 'retrieval' | (string & {});
}

/** What `files.upload` accepts as content: a path, bytes, a Blob/File, or a Node or web stream. */
export type Uploadable = string | Uint8Array | Blob | NodeJS.ReadableStream | ReadableStream<Uint8Array>;

/** Parameters of `files.upload` (multipart `POST /v1/files`): a `file`, or a remote `url` for the service to fetch. */
export interface FileUploadParams {
  /** A file path, a Buffer/Uint8Array, a Blob/File, or a readable stream. */
  file?: Uploadable;
  /** An http(s) address the service downloads instead; `file` wins when both are given. */
  url?: string;
  /** What the file is for; decides which formats and sizes the service accepts. */
  purpose: FilePurpose;
  /** Name sent with the content; defaults to the path's base name, a File's or fs stream's name. */
  filename?: string;
}

/** Options of `files.waitUntilReady`. */
export interface WaitUntilReadyOptions {
  /** Give up after this many milliseconds. @default 120_000 */
  timeout?: number | undefined;
  /** Milliseconds between polls. @default 500 */
  pollInterval?: number | undefined;
  /** Cancels the wait. */
  signal?: AbortSignal | undefined;
}
