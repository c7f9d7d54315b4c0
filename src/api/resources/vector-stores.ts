import { PagePromise } from '../pagination/page-promise.js';
import type { CursorPageResponse } from '../types/lists.js';
import type { RequestOptions } from '../types/request-options.js';
import type {
  VectorStore,
  VectorStoreCreateParams,
  VectorStoreDeleted,
  VectorStoreListParams,
} from '../types/vector-stores.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, segment, withOptions } from './resource-context.js';
import { VectorStoreFiles } from './vector-store-files.js';

/** `client.vectorStores`: knowledge bases. */
export class VectorStores {
  /** The files of a store. */
  readonly files: VectorStoreFiles;
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
    this.files = new VectorStoreFiles(context);
  }

  /** Creates a store (`POST /v1/vector_stores`); the service answers only `id` and `name`. */
  async create(params: VectorStoreCreateParams, options?: RequestOptions): Promise<VectorStore> {
    if (this.#context.validate) await validateRequest.vectorStoreCreate(params);
    return this.#context.transport.request<VectorStore>(
      withOptions({ method: 'POST', path: '/v1/vector_stores', body: params }, options),
    );
  }

  /** Gets a store with its file counts (`GET /v1/vector_stores/{id}`). */
  async retrieve(storeId: string, options?: RequestOptions): Promise<VectorStore> {
    if (this.#context.validate) validateRequest.id('vector_store_id', storeId, 'vectorStores.retrieve');
    return this.#context.transport.request<VectorStore>(
      withOptions({ method: 'GET', path: `/v1/vector_stores/${segment(storeId)}` }, options),
    );
  }

  /** Lists the stores, page by page (`GET /v1/vector_stores`). */
  list(query: VectorStoreListParams = {}, options?: RequestOptions): PagePromise<VectorStore> {
    return new PagePromise(query, async (pageQuery) => {
      if (this.#context.validate) await validateRequest.listQuery(pageQuery, 'vectorStores.list');
      return this.#context.transport.request<CursorPageResponse<VectorStore>>(
        withOptions({ method: 'GET', path: '/v1/vector_stores', query: { ...pageQuery } }, options),
      );
    });
  }

  /** Deletes a store (`DELETE /v1/vector_stores/{id}`). */
  delete(storeId: string, options?: RequestOptions): Promise<VectorStoreDeleted> {
    if (this.#context.validate) validateRequest.id('vector_store_id', storeId, 'vectorStores.delete');
    return this.#context.transport.request<VectorStoreDeleted>(
      withOptions({ method: 'DELETE', path: `/v1/vector_stores/${segment(storeId)}` }, options),
    );
  }
}
