import { PagePromise } from '../pagination/page-promise.js';
import type { CursorPageResponse } from '../types/lists.js';
import type { RequestOptions } from '../types/request-options.js';
import type {
  VectorStore,
  VectorStoreFile,
  VectorStoreFileBatch,
  VectorStoreFileCreateOptions,
  VectorStoreFileCreateParams,
  VectorStoreFileDeleted,
  VectorStoreFileListParams,
  VectorStoreType,
} from '../types/vector-stores.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, segment, withOptions } from './resource-context.js';

/** `client.vectorStores.files`: the files of a knowledge base. */
export class VectorStoreFiles {
  readonly #context: ResourceContext;
  /** Types of the stores looked up so far: a store's type never changes. */
  readonly #types = new Map<string, VectorStoreType>();

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /**
   * Adds uploaded files to a store (`POST /v1/vector_stores/{id}/files`, JSON). An image store needs a
   * description for every file: pass `storeType`, or the client looks the type up once when a file has none.
   */
  async create(
    storeId: string,
    params: VectorStoreFileCreateParams,
    options?: VectorStoreFileCreateOptions,
  ): Promise<VectorStoreFileBatch> {
    if (this.#context.validate) {
      validateRequest.id('vector_store_id', storeId, 'vectorStores.files.create');
      await validateRequest.vectorStoreFileCreate(params);
      const files = (params as { files?: unknown }).files;
      const undescribed =
        Array.isArray(files) && files.some((file) => !(file as { description?: unknown })?.description);
      let storeType = options?.storeType ?? this.#types.get(storeId);
      if (storeType === undefined && undescribed) storeType = await this.#lookUpType(storeId, options);
      if (storeType === 'image') await validateRequest.vectorStoreFileCreate(params, storeType);
    }
    return this.#context.transport.request<VectorStoreFileBatch>(
      withOptions(
        { method: 'POST', path: `/v1/vector_stores/${segment(storeId)}/files`, body: params },
        options,
      ),
    );
  }

  async #lookUpType(
    storeId: string,
    options: RequestOptions | undefined,
  ): Promise<VectorStoreType | undefined> {
    const store = await this.#context.transport.request<VectorStore>(
      withOptions({ method: 'GET', path: `/v1/vector_stores/${segment(storeId)}` }, options),
    );
    if (store.type) this.#types.set(storeId, store.type);
    return store.type;
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
