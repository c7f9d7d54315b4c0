import type { CursorPageQuery } from './lists.js';
import type { RequestOptions } from './request-options.js';

/** Kind of content a knowledge base indexes. */
export type VectorStoreType = 'text' | 'image';

/** File counters of a knowledge base. */
export interface VectorStoreFileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

/** A knowledge base. Creation answers only `id` and `name`, so the rest is optional. */
export interface VectorStore {
  id: string;
  name: string;
  object?: 'vector_store';
  created_at?: number;
  type?: VectorStoreType;
  file_counts?: VectorStoreFileCounts;
}

/** Body of `POST /v1/vector_stores`. */
export interface VectorStoreCreateParams {
  /** English letters, digits and underscore; must not start with an underscore. */
  name: string;
  type?: VectorStoreType;
}

/** Query of `GET /v1/vector_stores`. */
export type VectorStoreListParams = CursorPageQuery;

/** Response of `DELETE /v1/vector_stores/{id}`. */
export interface VectorStoreDeleted {
  id: string;
  object: 'vector_store.deleted';
  deleted: boolean;
}

/** A file inside a knowledge base. */
export interface VectorStoreFile {
  id: string;
  object: 'vector_store.file';
  created_at: number;
  vector_store_id: string;
  metadata?: { file_name?: string; description?: string; [key: string]: unknown };
}

/** Body of `POST /v1/vector_stores/{id}/files`. */
export interface VectorStoreFileCreateParams {
  /** Uploaded files of purpose `retrieval-text` or `retrieval-image`; `description` (<= 255) for image stores. */
  files: Array<{ file_id: string; description?: string }>;
}

/** Options of `vectorStores.files.create`: request options plus the store's type, when the caller knows it. */
export interface VectorStoreFileCreateOptions extends RequestOptions {
  /**
   * Type of the store. Image stores need a description for every file; without this the client looks the
   * type up once (only when a file has no description) and remembers it.
   */
  storeType?: VectorStoreType;
}

/** Response of `POST /v1/vector_stores/{id}/files`. */
export interface VectorStoreFileBatch {
  files: Array<{ file_id: string; metadata?: { description?: string; [key: string]: unknown } }>;
}

/** Query of `GET /v1/vector_stores/{id}/files`. */
export type VectorStoreFileListParams = CursorPageQuery;

/** Response of `DELETE /v1/vector_stores/{id}/files/{file_id}`. */
export interface VectorStoreFileDeleted {
  id: string;
  object: 'vector_store.file.deleted';
  deleted: boolean;
}
