import { PagePromise } from '../pagination/page-promise.js';
import type { CursorPageResponse } from '../types/lists.js';
import type { RequestOptions } from '../types/request-options.js';
import type {
  VectorStoreFile,
  VectorStoreFileBatch,
  VectorStoreFileCreateParams,
  VectorStoreFileDeleted,
  VectorStoreFileListParams,
} from '../types/vector-stores.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, segment, withOptions } from './resource-context.js';

/** `client.vectorStores.files`: the files of a knowledge base. */
export class VectorStoreFiles {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /** Adds uploaded files to a store (`POST /v1/vector_stores/{id}/files`, JSON). */
  async create(
    storeId: string,
    params: VectorStoreFileCreateParams,
    options?: RequestOptions,
  ): Promise<VectorStoreFileBatch> {
    if (this.#context.validate) {
      validateRequest.id('vector_store_id', storeId, 'vectorStores.files.create');
      await validateRequest.vectorStoreFileCreate(params);
    }
    return this.#context.transport.request<VectorStoreFileBatch>(
      withOptions(
        { method: 'POST', path: `/v1/vector_stores/${segment(storeId)}/files`, body: params },
        options,
      ),
    );
  }

  /** Lists the files of a store, page by page (`GET /v1/vector_stores/{id}/files`). */
  list(
    storeId: string,
    query: VectorStoreFileListParams = {},
    options?: RequestOptions,
  ): PagePromise<VectorStoreFile> {
    const path = `/v1/vector_stores/${segment(storeId)}/files`;
    return new PagePromise(query, async (pageQuery) => {
      if (this.#context.validate) {
        validateRequest.id('vector_store_id', storeId, 'vectorStores.files.list');
        await validateRequest.listQuery(pageQuery, 'vectorStores.files.list');
      }
      return this.#context.transport.request<CursorPageResponse<VectorStoreFile>>(
        withOptions({ method: 'GET', path, query: { ...pageQuery } }, options),
      );
    });
  }

  /** Removes a file from a store (`DELETE /v1/vector_stores/{id}/files/{file_id}`). */
  delete(storeId: string, fileId: string, options?: RequestOptions): Promise<VectorStoreFileDeleted> {
    if (this.#context.validate) {
      validateRequest.id('vector_store_id', storeId, 'vectorStores.files.delete');
      validateRequest.id('file_id', fileId, 'vectorStores.files.delete');
    }
    return this.#context.transport.request<VectorStoreFileDeleted>(
      withOptions(
        { method: 'DELETE', path: `/v1/vector_stores/${segment(storeId)}/files/${segment(fileId)}` },
        options,
      ),
    );
  }
}
