import { SvcError } from '../../transport/errors/svc-error.js';
import type { FileObject } from '../types/files.js';

/** `files.waitUntilReady` gave up: the file's parsing failed, or it was not ready in time. */
export class FileProcessingError extends SvcError {
  /** The file being waited for. */
  readonly fileId: string;
  /** `failed`: the service reported a failure status; `timeout`: still not `success` when time ran out. */
  readonly reason: 'failed' | 'timeout';
  /** The last file object the service returned, if any. */
  readonly file: FileObject | undefined;

  constructor(fileId: string, reason: 'failed' | 'timeout', file: FileObject | undefined, detail: string) {
    super(`File ${fileId} is not ready: ${detail}`);
    this.fileId = fileId;
    this.reason = reason;
    this.file = file;
  }
}
