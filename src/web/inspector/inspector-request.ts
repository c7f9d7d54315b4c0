import type { RunRecord, Store } from '../../agent/durable/store.js';
import { ChatRequestError } from '../web-error.js';

const ID = /^[\w.~:-]{1,200}$/;

/** `id` when it is a run or session id the inspector reads, else a 400 naming `field`. */
export function checkId(id: string, field: string): string {
  if (!ID.test(id)) throw badRequest(`${field}: must be 1-200 letters, digits, _ . ~ : or -`);
  return id;
}

/** A 400 answer naming the field and the rule. */
export function badRequest(message: string): ChatRequestError {
  return new ChatRequestError({ status: 400, message });
}

/** The stored run, or a 404 naming it. */
export async function requireRun(store: Store, id: string): Promise<RunRecord> {
  const record = await store.getRun(id);
  if (!record) throw new ChatRequestError({ status: 404, message: `runId: no run '${id}'` });
  return record;
}
