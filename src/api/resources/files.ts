import { RequestValidationError } from '../errors.js';
import { toUploadBlob } from '../files/to-upload-blob.js';
import { waitUntilReady } from '../files/wait-until-ready.js';
import { ListPromise } from '../pagination/list-promise.js';
import type {
  FileDeleted,
  FileList,
  FileListParams,
  FileObject,
  FileUploadParams,
  WaitUntilReadyOptions,
} from '../types/files.js';
import type { RequestOptions } from '../types/request-options.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, segment, withOptions } from './resource-context.js';

/** `client.files`: uploaded files. */
export class Files {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /**
   * Uploads a file (multipart `POST /v1/files` with fields `purpose` and `file`). `file` is a path, bytes,
   * a Blob/File or a stream; the name comes from `filename`, else from the path, File or fs stream.
   * The file is usable once its status is `success`: see {@link Files.waitUntilReady}.
   */
  async upload(params: FileUploadParams, options?: RequestOptions): Promise<FileObject> {
    if (this.#context.validate) await validateRequest.fileUpload(params);
    const form = new FormData();
    form.append('purpose', params.purpose);
    if (params.file !== undefined) {
      const { blob, filename: natural } = await toUploadBlob(params.file);
      const filename = params.filename ?? natural;
      if (!filename) {
        throw new RequestValidationError({
          operation: 'files.upload',
          issues: [
            {
              path: 'filename',
              message:
                'required when file is a Buffer, Blob or stream without a name (the service checks the extension)',
              code: 'request_params_invalid',
            },
          ],
        });
      }
      form.append('file', blob, filename);
    }
    // The service fetches a remote file itself; `file` wins when both are sent.
    if (params.url !== undefined) form.append('url', params.url);
    return this.#context.transport.request<FileObject>(
      withOptions({ method: 'POST', path: '/v1/files', form }, options),
    );
  }

  /** The same as {@link Files.upload}, under the name openai-node uses (`client.files.create`). */
  create(params: FileUploadParams, options?: RequestOptions): Promise<FileObject> {
    return this.upload(params, options);
  }

  /**
   * Lists the files, optionally of one purpose (`GET /v1/files`): `await` it for `{ object, data }`, or
   * `for await` over the files.
   */
  list(params: FileListParams = {}, options?: RequestOptions): ListPromise<FileObject> {
    return new ListPromise(async () => {
      if (this.#context.validate) await validateRequest.fileListQuery(params);
      const query = params.purpose === undefined ? undefined : { purpose: params.purpose };
      return this.#context.transport.request<FileList>(
        withOptions(
          query ? { method: 'GET', path: '/v1/files', query } : { method: 'GET', path: '/v1/files' },
          options,
        ),
      );
    });
  }

  /** Gets one file with its status (`GET /v1/files/{id}`). */
  async retrieve(fileId: string, options?: RequestOptions): Promise<FileObject> {
    if (this.#context.validate) validateRequest.id('file_id', fileId, 'files.retrieve');
    return this.#context.transport.request<FileObject>(
      withOptions({ method: 'GET', path: `/v1/files/${segment(fileId)}` }, options),
    );
  }

  /** The extracted text of a `file-extract` file (`GET /v1/files/{id}/content`). */
  async content(fileId: string, options?: RequestOptions): Promise<string> {
    if (this.#context.validate) validateRequest.id('file_id', fileId, 'files.content');
    return this.#context.transport.request<string>(
      withOptions(
        { method: 'GET', path: `/v1/files/${segment(fileId)}/content`, responseType: 'text' },
        options,
      ),
    );
  }

  /** Deletes a file (`DELETE /v1/files/{id}`). */
  async delete(fileId: string, options?: RequestOptions): Promise<FileDeleted> {
    if (this.#context.validate) validateRequest.id('file_id', fileId, 'files.delete');
    return this.#context.transport.request<FileDeleted>(
      withOptions({ method: 'DELETE', path: `/v1/files/${segment(fileId)}` }, options),
    );
  }

  /**
   * Polls the file until its status is `success` (the service says `processed` while still parsing).
   * Throws `FileProcessingError` on a failure status or after `timeout` ms, `APIUserAbortError` on `signal`.
   */
  async waitUntilReady(fileId: string, options: WaitUntilReadyOptions = {}): Promise<FileObject> {
    if (this.#context.validate) validateRequest.id('file_id', fileId, 'files.waitUntilReady');
    return waitUntilReady(fileId, (signal) => this.retrieve(fileId, { signal }), options);
  }

  /** The same as {@link Files.waitUntilReady}, under the name openai-node uses. */
  waitForProcessing(fileId: string, options: WaitUntilReadyOptions = {}): Promise<FileObject> {
    return this.waitUntilReady(fileId, options);
  }
}
