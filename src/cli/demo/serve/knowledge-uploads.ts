import type { Store } from '../../../agent/durable/store.js';
import type { SvcClient } from '../../../api/svc-client.js';
import { chatKeys } from '../../../web/chat-state.js';
import { ChatRequestError } from '../../../web/web-error.js';

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
 * (`retrieval-text`), waited for until parsed, and added to the session's base. With a store holding
 * shared values, the session's base id is kept there (`chat:kb:<sessionId>`), so every server of the chat
 * finds it.
 */
export class KnowledgeUploads {
  readonly #client: SvcClient;
  readonly #store: Store | undefined;
  readonly #stores = new Map<string, Promise<string>>();

  constructor(client: SvcClient, store?: Store) {
    this.#client = client;
    this.#store = store?.getValue && store.setValueIf ? store : undefined;
  }

  /** The knowledge base of a session, if a file was uploaded in it (on any server sharing the store). */
  async storeOf(sessionId: string): Promise<string | undefined> {
    const local = this.#stores.get(sessionId);
    if (local || !this.#store) return local;
    return (await this.#store.getValue!(chatKeys.knowledgeBase(sessionId))).value;
  }

  /** The session's knowledge base, created on its first upload (once, even across servers). */
  #baseOf(sessionId: string): Promise<string> {
    let base = this.#stores.get(sessionId);
    if (base) return base;
    base = (async () => {
      const shared = this.#store;
      const known = shared && (await shared.getValue!(chatKeys.knowledgeBase(sessionId)));
      if (known?.value) return known.value;
      const name = `chat_${sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 24) || 'files'}`;
      const created = (await this.#client.vectorStores.create({ name })).id;
      if (
        !shared ||
        (await shared.setValueIf!(chatKeys.knowledgeBase(sessionId), known?.version ?? 0, created))
      )
        return created;
      // Another server created the session's base at the same moment: use that one.
      const winner = (await shared.getValue!(chatKeys.knowledgeBase(sessionId))).value;
      await this.#client.vectorStores.delete(created).catch(() => {});
      return winner ?? created;
    })();
    this.#stores.set(sessionId, base);
    base.catch(() => this.#stores.delete(sessionId));
    return base;
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
    const knowledgeBaseId = await this.#baseOf(sessionId);
    const uploaded = await client.files.upload({
      file: new File([bytes], fileName),
      purpose: 'retrieval-text',
    });
    await client.files.waitUntilReady(uploaded.id, { timeout: 120_000 });
    await client.vectorStores.files.create(knowledgeBaseId, { files: [{ file_id: uploaded.id }] });
    return { fileId: uploaded.id, fileName, knowledgeBaseId };
  }
}
