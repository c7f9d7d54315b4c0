import type { SvcClient } from '../../api/svc-client.js';
import { ChatRequestError } from '../web-error.js';

/** What an upload answers. */
export interface UploadedFile {
  fileId: string;
  fileName: string;
  knowledgeBaseId: string;
}

/** The largest file the chat page uploads, in bytes. */
export const maxUploadBytes = 10 * 1024 * 1024;

/**
 * One knowledge base per chat session, created on the first upload: a file is uploaded
 * (`retrieval-text`), waited for until parsed, and added to the session's base.
 */
export class KnowledgeUploads {
  readonly #client: SvcClient;
  readonly #stores = new Map<string, Promise<string>>();

  constructor(client: SvcClient) {
    this.#client = client;
  }

  /** The knowledge base of a session, if a file was uploaded in it. */
  storeOf(sessionId: string): Promise<string> | undefined {
    return this.#stores.get(sessionId);
  }

  /** Adds a file to the session's knowledge base. */
  async add(sessionId: string, fileName: string, bytes: Uint8Array): Promise<UploadedFile> {
    if (bytes.byteLength === 0)
      throw new ChatRequestError({ status: 400, message: 'body: the file is empty' });
    if (bytes.byteLength > maxUploadBytes)
      throw new ChatRequestError({
        status: 413,
        message: `body: files up to ${maxUploadBytes / 1024 / 1024} MB`,
      });
    const client = this.#client;
    let store = this.#stores.get(sessionId);
    if (!store) {
      const name = `chat_${sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 24) || 'files'}`;
      store = client.vectorStores.create({ name }).then((created) => created.id);
      this.#stores.set(sessionId, store);
      store.catch(() => this.#stores.delete(sessionId));
    }
    const knowledgeBaseId = await store;
    const uploaded = await client.files.upload({
      file: new File([bytes], fileName),
      purpose: 'retrieval-text',
    });
    await client.files.waitUntilReady(uploaded.id, { timeout: 120_000 });
    await client.vectorStores.files.create(knowledgeBaseId, { files: [{ file_id: uploaded.id }] });
    return { fileId: uploaded.id, fileName, knowledgeBaseId };
  }
}
