import { invalidParams, notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import type { EmulatorState, StoreRecord } from '../state.js';
import { objectBody, validateBody } from '../validate.js';
import { getFile } from './files.js';

function getStore(state: EmulatorState, id: string): StoreRecord {
  const store = state.stores.get(id);
  if (!store) throw notFound('vector store', id);
  return store;
}

function storeObject(store: StoreRecord, state: EmulatorState) {
  const now = Date.now();
  const ready = store.files.filter((f) => (state.files.get(f.id)?.readyAt ?? 0) <= now).length;
  return {
    id: store.id,
    object: 'vector_store',
    created_at: store.created_at,
    name: store.name,
    type: store.type,
    file_counts: {
      in_progress: store.files.length - ready,
      completed: ready,
      failed: 0,
      cancelled: 0,
      total: store.files.length,
    },
  };
}

/** `POST /v1/vector_stores`: answers only `{ id, name }`, as the service does. */
export function createStore(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.vectorStoreCreate(body);
  const store: StoreRecord = {
    id: ctx.state.numericId(),
    name: body.name as string,
    type: (body.type as 'text' | 'image' | undefined) ?? 'text',
    created_at: Math.floor(Date.now() / 1000),
    seq: ctx.state.nextSeq(),
    files: [],
  };
  ctx.state.stores.set(store.id, store);
  ctx.state.commit();
  return json({ id: store.id, name: store.name });
}

/** `GET /v1/vector_stores/{id}`. */
export function retrieveStore(ctx: RouteContext): Reply {
  return json(storeObject(getStore(ctx.state, ctx.params.store_id ?? ''), ctx.state));
}

/** `GET /v1/vector_stores` with cursors. */
export function listStores(ctx: RouteContext): Reply {
  const stores = [...ctx.state.stores.values()]
    .sort((a, b) => a.seq - b.seq)
    .map((s) => storeObject(s, ctx.state));
  return json(paginate(stores, ctx.query));
}

/** `DELETE /v1/vector_stores/{id}`. */
export function deleteStore(ctx: RouteContext): Reply {
  const store = getStore(ctx.state, ctx.params.store_id ?? '');
  ctx.state.stores.delete(store.id);
  ctx.state.commit();
  return json({ id: store.id, deleted: true, object: 'vector_store.deleted' });
}

/** `POST /v1/vector_stores/{id}/files` (JSON `files: [{ file_id, description? }]`). */
export function addStoreFiles(ctx: RouteContext): Reply {
  const store = getStore(ctx.state, ctx.params.store_id ?? '');
  const body = objectBody(ctx.body);
  validateBody.vectorStoreFilesCreate(body, store.type);
  const wanted = store.type === 'image' ? 'retrieval-image' : 'retrieval-text';
  const entries = body.files as Array<{ file_id: string; description?: string }>;
  for (const [i, entry] of entries.entries()) {
    const file = getFile(ctx.state, entry.file_id as string);
    if (file.purpose !== wanted) {
      throw invalidParams(
        `files[${i}].file_id: a ${store.type} store takes files of purpose "${wanted}", not "${file.purpose}"`,
      );
    }
  }
  const now = Math.floor(Date.now() / 1000);
  for (const entry of entries) {
    const id = entry.file_id as string;
    if (store.files.some((f) => f.id === id)) continue;
    const record = { id, created_at: now, seq: ctx.state.nextSeq() };
    store.files.push(
      typeof entry.description === 'string' ? { ...record, description: entry.description } : record,
    );
  }
  ctx.state.commit();
  return json({
    files: entries.map((e) => ({
      file_id: e.file_id,
      metadata: { description: typeof e.description === 'string' ? e.description : '' },
    })),
  });
}

/** `GET /v1/vector_stores/{id}/files` with cursors. */
export function listStoreFiles(ctx: RouteContext): Reply {
  const store = getStore(ctx.state, ctx.params.store_id ?? '');
  const files = store.files.map((f) => ({
    id: f.id,
    object: 'vector_store.file',
    created_at: f.created_at,
    vector_store_id: store.id,
    metadata: {
      file_name: ctx.state.files.get(f.id)?.filename ?? '',
      ...(f.description !== undefined ? { description: f.description } : {}),
    },
  }));
  return json(paginate(files, ctx.query));
}

/** `DELETE /v1/vector_stores/{id}/files/{file_id}`. */
export function deleteStoreFile(ctx: RouteContext): Reply {
  const store = getStore(ctx.state, ctx.params.store_id ?? '');
  const id = ctx.params.file_id ?? '';
  if (!store.files.some((f) => f.id === id)) throw notFound(`file in vector store ${store.id}`, id);
  store.files = store.files.filter((f) => f.id !== id);
  ctx.state.commit();
  return json({ id, deleted: true, object: 'vector_store.file.deleted' });
}
